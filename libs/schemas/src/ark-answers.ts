import { z } from 'zod';

/**
 * ARK's answers, exactly as the handlers send them: fastify serializes through these, so a field
 * left out here is not sent. A write past the sync wait answers 202 `accepted` with what it was
 * about and its request id (Kafka has it).
 */
const Count = z.number().int().min(0);

export const ArkStored = z.object({
  status: z.enum(['ok']),
  session_id: z.string(),
  count: Count,
  request_id: z.string(),
});
export const ArkStoring = ArkStored.extend({ status: z.enum(['accepted']) });

/** One stored OpenAI chat message, whole: every key the client sent (`role` always). */
const StoredMessage = z
  .record(z.string(), z.unknown())
  .meta({ description: 'The OpenAI chat message as it was sent: role, content and any other key' });

export const ArkMessagePage = z.object({
  messages: z.array(
    z.object({
      id: z.number().int(),
      timestamp: z.string(),
      created_at: z.string(),
      session_id: z.string(),
      query_id: z.string().meta({ description: 'The query the message came with, or ""' }),
      message: StoredMessage,
      sequence: z.number().int().min(1).meta({
        description:
          "The record's position from 1 in storage order among what the filters select (the session, the query, or every ARK session), before limit and offset; it starts again at 1 after a purge",
      }),
    }),
  ),
  total: Count,
  limit: Count,
  offset: Count,
});

export const ArkSessions = z.object({ sessions: z.array(z.string()) });

export const ArkPurged = z.object({
  message: z.enum(['Memory purged']),
  sessions: z.array(z.string()).meta({ description: 'The sessions purged' }),
  deleted_messages: Count,
});
export const ArkPurging = z.object({ status: z.enum(['accepted']), request_ids: z.array(z.string()) });

export const ArkRelayed = z.object({ status: z.enum(['ok']), session: z.string(), chunks: Count });
export const ArkRelaying = ArkRelayed.extend({
  status: z.enum(['accepted']),
  /** Sent for a JSON body (one write); a newline-delimited body is written in several. */
  request_id: z.string().optional(),
});

export const ArkCompleted = z.object({
  status: z.enum(['completed', 'already_completed']),
  session: z.string(),
  query: z.string().meta({ description: "The same id, under the name ARK's reference service answers with" }),
});
export const ArkCompleting = z.object({
  status: z.enum(['accepted']),
  session: z.string(),
  query: z.string(),
  request_id: z.string(),
});

/** DELETE /stream: ARK's reference answer, and the sessions whose streams were purged. */
export const ArkStreamsPurged = z.object({
  status: z.enum(['success']),
  message: z.enum(['Stream data purged']),
  sessions: z.array(z.string()).meta({ description: 'The sessions whose relayed streams were purged' }),
});
export const ArkStreamsPurging = z.object({ status: z.enum(['accepted']), request_ids: z.array(z.string()) });

const ArkStreamStats = z.object({
  total_chunks: Count.meta({ description: "Chunks kept, and the [DONE] a completion adds, as ARK's service counts" }),
  completed: z.boolean(),
  has_done_marker: z.boolean(),
  chunk_types: z.object({
    content: Count,
    tool_calls: Count,
    finish_reason: Count,
    unknown: Count,
  }),
});
/** GET /stream-statistics: per relayed stream the caller may read, keyed by its session (query) id. */
export const ArkStreamStatistics = z.object({
  total_queries: Count,
  queries: z.record(z.string(), ArkStreamStats),
});
export type ArkStreamStatistics = z.infer<typeof ArkStreamStatistics>;

/**
 * The data of one event of an ARK stream, as JSON: a chat.completion.chunk (a stored message, the
 * final chunk), a relayed chunk as it was posted (any object), or an error that ends the stream
 * (`{error: "..."}` in spec 000's framing, OpenAI's `{error: {message, type, code}}` in the
 * reference framing). The markers `[LIVE_MODE]`, `[STREAM_END]` and `[DONE]` are sent bare.
 */
export const ArkStreamEventData = z.record(z.string(), z.unknown());
export const ARK_STREAM_MARKERS = ['[LIVE_MODE]', '[STREAM_END]', '[DONE]'] as const;
