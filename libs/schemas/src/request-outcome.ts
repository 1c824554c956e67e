import { z } from 'zod';

/**
 * What became of one write request (one input event; its id is the request id). The converter
 * records it with the write itself and announces it on the completion channel, which is how a
 * gateway holding the HTTP call open learns it may answer.
 */
export const RequestOutcome = z.object({
  request_id: z.string().min(1),
  kind: z.enum(['message', 'conversation_meta', 'conversation']),
  status: z.enum(['stored', 'failed']),
  group_id: z.string().nullable(),
  message_id: z.string().nullable(),
  /** The message was already stored by an earlier request: nothing was written. */
  duplicate: z.boolean(),
  /** For a message, its sequence number; for metadata, the row the API answers with. */
  result: z.record(z.string(), z.unknown()).nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
});
export type RequestOutcome = z.infer<typeof RequestOutcome>;

/** The fan-out channel outcomes are announced on, as a JSON array per converter batch. */
export const REQUEST_OUTCOME_CHANNEL = 'memstream.request-outcomes';
