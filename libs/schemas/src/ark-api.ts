import { z } from 'zod';
import { ArkSessionId } from './ark-messages.js';
import { STORED_ID_MAX_CHARS } from './ids.js';

/** ARK's HTTP requests beyond the message batch: the queries, path and chunk bodies its routes parse. */
export const ArkListQuery = z.object({
  session_id: z.string().min(1).max(STORED_ID_MAX_CHARS).optional(),
  query_id: z.string().min(1).max(255).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).default(0),
});

/** `DELETE /messages`: ARK's purge, of one session or of every session the caller may manage. */
export const ArkPurgeQuery = z.object({
  session_id: z.string().min(1).max(STORED_ID_MAX_CHARS).optional(),
});

/**
 * Go's duration syntax as ARK clients send it: `500ms`, `30s`, `1m30s`, `2h`. Digits are written
 * `[0-9]`: in the document's other readers (Python, Rust) `\d` also takes other scripts' digits.
 */
export const GO_DURATION_PATTERN = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

/** `wait-for-query` as ark-api sends it (whole seconds) or as a Go duration. */
export const ARK_WAIT_PATTERN = /^([0-9]{1,6}(\.[0-9]+)?|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$/;

export const ArkStreamQuery = z.object({
  'from-beginning': z
    .enum(['true', 'false'])
    .default('false')
    .meta({ description: 'Replay stored messages and chunks first, then [LIVE_MODE]' }),
  'wait-for-session': z
    .enum(['true', 'false'])
    .default('false')
    .meta({ description: 'Wait for a session that does not exist yet' }),
  timeout: z
    .string()
    .regex(GO_DURATION_PATTERN, { message: 'must be a Go duration such as 500ms, 30s or 5m' })
    .default('30s')
    .meta({ description: 'How long to wait for the session: a Go duration (500ms, 30s, 5m), at most 5m' }),
  'wait-for-query': z
    .string()
    .regex(ARK_WAIT_PATTERN, { message: 'must be whole seconds (300) or a Go duration (30s, 5m)' })
    .optional()
    .meta({
      description:
        "ark-api's parameter: seconds (or a Go duration) to wait for a query's stream that does not exist yet, 1 to 300. " +
        "Sending it selects ARK's reference framing: `data:` lines only, errors as {error: {message, type, code}}, no [LIVE_MODE] or [STREAM_END]",
    }),
});

/** The path of every per-session ARK route. */
export const ArkSessionParams = z.object({ session_id: ArkSessionId });

/**
 * Token chunks to relay: one chunk object or a non-empty array of them. As JSON, that is the body;
 * as newline-delimited text (application/x-ndjson, application/jsonl, text/plain), each line is one
 * such value. The document gives the value, not the text: no pattern says which strings are JSON.
 */
const Chunk = z.record(z.string(), z.unknown());
export const ArkStreamChunks = z.union([Chunk, z.array(Chunk).min(1)]).meta({
  description:
    'One chunk object or a non-empty array of them: the JSON body, or each line of a newline-delimited one (application/x-ndjson)',
});
