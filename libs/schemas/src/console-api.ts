import { z } from 'zod';
import { SourceApi } from './canonical-message.js';
import { TOPICS } from './topics.js';

/**
 * memstream's own routes for a front end that looks across families (the console): every
 * conversation a caller may read in one list, and the dead-lettered records of each `.dlq` topic.
 * Every value is bounded (lengths, patterns, enums, ranges) and answers are strict objects; a query
 * ignores parameters it does not name, as every route of the house does (OpenAPI cannot say
 * otherwise of a query).
 */
const Text = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000]+$/);
const Instant = z.iso.datetime({ offset: true });

export const ConsoleConversationsQuery = z.object({
  family: SourceApi.optional().meta({
    description: 'Only conversations this family started; memory-agent: those the Memory Agent summarized',
  }),
  group: Text.optional().meta({
    description: 'Part of a conversation id, a KAOS session id or a title (any case)',
  }),
  person: Text.optional().meta({
    description:
      'A person who is a member (below manager, only the owner or yourself match as members), the KAOS session’s user, or a sender of a message you may read',
  }),
  from: Instant.optional().meta({ description: 'Last active at or after this instant' }),
  to: Instant.optional().meta({ description: 'Last active before this instant' }),
  cursor: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .meta({ description: 'nextCursor of the page before' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const ConsoleKaosSession = z.strictObject({ agent: z.string(), sessionId: z.string(), userId: z.string() });

export const ConsoleConversation = z.strictObject({
  id: z.string(),
  family: SourceApi.meta({ description: 'The family that started it (its messages may come from any)' }),
  groupId: z.string().meta({ description: 'The access group: the conversation itself, or the root of its fork tree' }),
  title: z.string().nullable(),
  owner: z.string().nullable(),
  forkedFrom: z.string().nullable(),
  session: ConsoleKaosSession.nullable().meta({ description: 'The KAOS session it holds, for KAOS' }),
  summaries: z.number().int().meta({ description: "The Memory Agent's completed summaries of it (its windows)" }),
  createdAt: z.string(),
  lastActivity: z.string(),
});
export type ConsoleConversation = z.infer<typeof ConsoleConversation>;

export const ConsoleConversationPage = z.strictObject({
  data: z.array(ConsoleConversation),
  nextCursor: z.string().nullable(),
});

/** Every topic's dead-letter twin, the names the dead-letter read takes. */
export const DeadLetterTopic = z.enum(Object.values(TOPICS).map((t) => t.dlq) as [string, ...string[]]);

export const DeadLettersQuery = z.object({
  topic: DeadLetterTopic.optional().meta({ description: 'One dead-letter topic; every one when absent' }),
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'The latest records of each topic' }),
});

export const DeadLetterRecord = z.strictObject({
  partition: z.number().int(),
  offset: z.string(),
  key: z.string().nullable(),
  reason: z.string().nullable(),
  code: z.string().nullable(),
  attempts: z.number().int().nullable(),
  sourceTopic: z.string().nullable(),
  sourcePartition: z.number().int().nullable(),
  sourceOffset: z.string().nullable(),
  consumerGroup: z.string().nullable(),
  correlationId: z.string().nullable(),
  value: z.string().meta({ description: 'The record as it was (UTF-8), cut at valueLimit characters' }),
  valueBytes: z.number().int(),
});
export type DeadLetterRecord = z.infer<typeof DeadLetterRecord>;

export const DeadLetterTopicRecords = z.strictObject({
  topic: z.string(),
  /** Records the topic still holds, the ones shown included. */
  retained: z.number().int(),
  records: z.array(DeadLetterRecord).meta({ description: 'Newest first' }),
});

export const DeadLetterList = z.strictObject({
  valueLimit: z.number().int(),
  data: z.array(DeadLetterTopicRecords),
});

export const ConsumerPartitionLag = z.strictObject({
  partition: z.number().int(),
  end: z.number().int().meta({ description: 'The offset the next record written to the partition gets' }),
  committed: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Where the group resumes on the partition; null when it never committed there' }),
  lag: z.number().int().meta({ description: 'Records written that the group has not committed past' }),
});

export const ConsumerGroupLag = z.strictObject({
  group: z.string().meta({ description: 'The consumer group id' }),
  topic: z.string().meta({ description: 'The topic as the catalogue names it (without the deployment prefix)' }),
  lag: z.number().int().meta({ description: 'Summed over the partitions' }),
  partitions: z.array(ConsumerPartitionLag),
});
export type ConsumerGroupLag = z.infer<typeof ConsumerGroupLag>;

export const ConsolePipeline = z.strictObject({
  data: z
    .array(ConsumerGroupLag)
    .meta({ description: "One entry per consumer group and topic of memstream's pipeline, in the pipeline's order" }),
});
