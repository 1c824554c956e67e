import { z } from 'zod';
import { SourceApi } from './canonical-message.js';

/** The erasure API's payloads (memstream's own, beside memory-service's admin contract). */
const PersonId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);
const Justification = z
  .string()
  .max(2000)
  .regex(/^[^\u0000]*$/);

export const ErasureStatus = z.enum(['pending', 'running', 'completed', 'failed']);

export const ErasureRequest = z
  .object({
    userId: PersonId.meta({ description: "The person to erase (a token's subject, a sender id)" }),
    justification: Justification.meta({ description: 'Why; kept in the audit log' }),
  })
  .strict();
export type ErasureRequest = z.infer<typeof ErasureRequest>;

export const MyErasureRequest = z
  .object({ justification: Justification.optional().meta({ description: 'Why; kept in the audit log' }) })
  .strict();

export const ErasureParams = z.object({ id: z.uuid() });

export const ErasureListQuery = z.object({
  userId: PersonId.optional().meta({ description: "Only this person's erasures" }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const ErasureAccepted = z.object({ id: z.string(), status: ErasureStatus });

const StoreCounts = z
  .record(z.string(), z.number().int())
  .meta({ description: 'What was removed or rewritten, per kind' });
const FamilyCounts = z.object({
  postgres: StoreCounts,
  redis: StoreCounts,
  kafka: StoreCounts.meta({
    description:
      "Records removed from the transport (Kafka, or the embedded bus and its journal), per topic: a consumed prefix (everyone's records, once every consumer passed them) or the person's dead letters",
  }),
});

export const ErasureReceipt = z.object({
  id: z.string(),
  userId: z.string(),
  status: ErasureStatus,
  requestedBy: z.string(),
  self: z.boolean().meta({ description: 'Whether the person asked for it themself' }),
  requestedAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  step: z.string().meta({
    description:
      'Where the job is: owned-conversations, sent-messages, keyed-records, response-streams, transport-copies, final-check',
  }),
  passes: z.number().int(),
  error: z.string().nullable(),
  reason: z.string().nullable().meta({
    description:
      "Why the last pass or try fell short (so why a job has not finished yet, why it failed, or why a completed one took more than one pass): what the pass found of the person's own data (their conversations, messages or memories, stored while it ran), or the step a try stopped in. Never content",
  }),
  counts: z.object(
    Object.fromEntries(SourceApi.options.map((family) => [family, FamilyCounts])) as Record<
      SourceApi,
      typeof FamilyCounts
    >,
  ),
});

/** The latest erasures, newest first, each as its receipt. */
export const ErasureList = z.object({ data: z.array(ErasureReceipt) });

/** The roles the caller holds, as the server resolved them (none for a plain person or agent). */
export const CallerRoles = z.object({ roles: z.array(z.enum(['admin', 'auditor'])) });
