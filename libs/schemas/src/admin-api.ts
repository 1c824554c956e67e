import { z } from 'zod';
import { AccessLevel } from './access-level.js';
import { MemoryServiceChannel } from './conversation-events.js';
import { ExportRecord } from './export-format.js';

/**
 * The admin API's payloads (memory-service's admin contract, January 2026), plus the audit log
 * read, which the contract leaves out. Query booleans are the words `true` and `false`.
 */
const Id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);
const QueryBool = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');
/** Why the call was made, kept in the audit log. Bounded: it is stored with every row. */
const Justification = z
  .string()
  .max(2000)
  .regex(/^[^\u0000]*$/);
const Instant = z.iso.datetime({ offset: true });

export const AdminConversationParams = z.object({ id: Id });
export const EvictionJobParams = z.object({ jobId: z.uuid() });

export const AdminListConversationsQuery = z.object({
  userId: Id.optional(),
  includeDeleted: QueryBool,
  onlyDeleted: QueryBool,
  deletedAfter: Instant.optional(),
  deletedBefore: Instant.optional(),
  after: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  justification: Justification.optional(),
});

export const AdminGetConversationQuery = z.object({
  includeDeleted: QueryBool,
  justification: Justification.optional(),
});

export const AdminMessagesQuery = z.object({
  after: Id.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  /** Any case, answered in lower case, as the memory-service's own routes take it. */
  channel: z
    .string()
    .regex(
      /^(?:[hH][iI][sS][tT][oO][rR][yY]|[mM][eE][mM][oO][rR][yY]|[sS][uU][mM][mM][aA][rR][yY])$/,
      'history, memory or summary',
    )
    .transform((v) => v.toLowerCase())
    .pipe(MemoryServiceChannel)
    .optional(),
  includeDeleted: QueryBool,
  justification: Justification.optional(),
});

export const AdminActionRequest = z.object({ justification: Justification.optional() });
/** An admin's deletion or restoration the converter had not applied when the wait ended; it will be (memstream addition). */
export const AdminChangeAccepted = z
  .object({ status: z.literal('accepted'), id: z.string(), requestId: z.string() })
  .meta({ description: 'Published but not applied within the wait; it will be (memstream addition)' });
export const JustificationQuery = z.object({ justification: Justification.optional() });

export const AdminSearchRequest = z.object({
  query: z.string().min(1).max(2000),
  topK: z.number().int().min(1).max(100).default(20),
  conversationIds: z.array(Id).max(1000).nullable().optional(),
  /** Only conversations this person owns. */
  userId: Id.nullable().optional(),
  /** Only messages written before this one. */
  before: Id.nullable().optional(),
  includeDeleted: z.boolean().default(false),
});

/**
 * ISO 8601: P[nY][nM][nW][nD][T[nH][nM][nS]] with at least one part, a digit after T, and some
 * non-zero digit (a positive duration); seconds may have a fraction. The settings and the store
 * test a period with this one pattern.
 */
export const RETENTION_PERIOD_PATTERN =
  /^P(?=[0-9]|T[0-9])(?=.*[1-9])(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?=[0-9])(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?$/;

/*
 * The same rule as the published schema says it: the shape without lookarounds (the first part
 * present picks the branch), and "not all zeros" beside it. Schemathesis draws from a lookaround
 * pattern by filtering, and gave up on the eviction route (filter_too_much); from these it draws
 * directly. A test holds the two forms to one language.
 */
const N = '[0-9]+';
const DATE = `(?:${N}Y(?:${N}M)?(?:${N}W)?(?:${N}D)?|${N}M(?:${N}W)?(?:${N}D)?|${N}W(?:${N}D)?|${N}D)`;
const SECONDS = `${N}(?:\\.${N})?S`;
const TIME = `T(?:${N}H(?:${N}M)?(?:${SECONDS})?|${N}M(?:${SECONDS})?|${SECONDS})`;
export const RETENTION_PERIOD_SHAPE = new RegExp(`^P(?:${DATE}(?:${TIME})?|${TIME})$`);
/** A period of that shape whose digits are all zeros: no time at all. */
export const ZERO_PERIOD = /^[^1-9]*$/;

const PERIOD_MESSAGE = 'a positive ISO 8601 duration such as P90D, P1Y or PT24H';
export const RetentionPeriod = z
  .string()
  .max(64)
  .regex(RETENTION_PERIOD_SHAPE, PERIOD_MESSAGE)
  .refine((v) => !ZERO_PERIOD.test(v), PERIOD_MESSAGE)
  .meta({ not: { pattern: ZERO_PERIOD.source } });

export const EvictRequest = z.object({
  retentionPeriod: RetentionPeriod,
  resourceTypes: z
    .array(z.enum(['conversation_groups', 'conversation_memberships']))
    .min(1)
    .max(10),
  justification: Justification.optional(),
});
export const EvictQuery = z.object({ async: QueryBool });

export const AuditLogQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  actorId: Id.optional(),
  action: Id.optional(),
  target: Id.optional(),
  since: Instant.optional(),
  until: Instant.optional(),
});

/** Answers, for the documentation. */
const ConversationSummaryBody = z.object({
  id: z.string(),
  title: z.string().nullable(),
  ownerUserId: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
  lastMessagePreview: z.string().nullable(),
});
export const AdminConversationBody = ConversationSummaryBody.extend({
  forkedAtMessageId: z.string().nullable(),
  forkedAtConversationId: z.string().nullable(),
});
export const AdminConversationList = z.object({ data: z.array(ConversationSummaryBody) });
const MessageBody = z.object({
  id: z.string(),
  conversationId: z.string(),
  userId: z.string().optional(),
  channel: MemoryServiceChannel,
  epoch: z.number().int().optional(),
  content: z.array(z.unknown()),
  createdAt: z.string(),
});
export const AdminMessagePage = z.object({ data: z.array(MessageBody), nextCursor: z.string().nullable() });
export const AdminMembershipList = z.object({
  data: z.array(
    z.object({ conversationId: z.string(), userId: z.string(), accessLevel: AccessLevel, createdAt: z.string() }),
  ),
});
export const AdminSearchResults = z.object({
  data: z.array(z.object({ message: MessageBody, score: z.number(), highlights: z.string().nullable() })),
});
export const EvictionJobBody = z.object({
  jobId: z.string(),
  status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'FAILED']),
  progress: z.number().int().min(0).max(100),
  createdAt: z.string(),
  completedAt: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  counts: z.record(z.string(), z.number()).meta({ description: 'Rows removed so far, per kind (memstream addition)' }),
});
/** An event of the eviction's stream: how far it is, or (as `event: error`) why it stopped. */
export const EvictionStreamData = z.union([
  z.object({ progress: z.number().int().min(0).max(100) }),
  z.object({ error: z.string() }),
]);
export const AuditLogPage = z.object({
  data: z.array(
    z.object({
      id: z.number().int(),
      occurredAt: z.string(),
      actorKind: z.enum(['user', 'agent', 'local', 'system']),
      actorId: z.string(),
      role: z.enum(['admin', 'auditor']).nullable(),
      action: z.string(),
      target: z.string().nullable(),
      justification: z.string().nullable(),
      status: z.number().int(),
      params: z.record(z.string(), z.unknown()),
      counts: z.record(z.string(), z.number()),
    }),
  ),
  nextCursor: z.string().nullable(),
});

/** `GET /v1/admin/exports`: one person's data with userId, the whole server without. */
export const ExportQuery = z.object({ userId: Id.optional(), justification: Justification.optional() });
export const ImportQuery = z.object({ justification: Justification.optional() });
/** The refused conversations an import's answer names one by one; past these, it counts them. */
export const IMPORT_REFUSALS_LISTED = 1000;
/** An import's body as JSON (NDJSON is the same records, one a line): its records in an array, or one record. */
export const ImportRequest = z.union([ExportRecord, z.array(ExportRecord)]);
export const ImportResult = z.object({
  lines: z.number().int().meta({ description: 'Lines read, the header and end included' }),
  imported: z.record(z.string(), z.number().int()).meta({ description: 'Records stored, per kind' }),
  alreadyPresent: z
    .record(z.string(), z.number().int())
    .meta({ description: 'Records whose key the server already held (left as they were), per kind' }),
  refused: z.record(z.string(), z.number().int()).meta({
    description:
      'Records not stored because they belong to a conversation this import did not create (one the server already holds, or one without its conversation record earlier in the file), per kind',
  }),
  refusedConversations: z
    .array(
      z.object({
        error: z.string(),
        code: z.enum(['conflict']),
        details: z.object({
          resource: z.enum(['conversation']),
          id: z.string(),
          records: z.record(z.string(), z.number().int()).meta({ description: 'Its records refused, per kind' }),
        }),
      }),
    )
    .meta({
      description: `Each conversation whose records were refused, in the admin API's error shape (the first ${IMPORT_REFUSALS_LISTED}; refusedConversationCount says how many in all)`,
    }),
  refusedConversationCount: z.number().int(),
});
