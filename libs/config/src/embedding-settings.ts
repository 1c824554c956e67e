import { z } from 'zod';
import { env } from './load-config.js';

/**
 * How a process turns text into vectors. A shape, not a schema: a service that embeds spreads it
 * into its own env schema (services/<name>/src/config.ts), as it does the other shared groups.
 *
 * Every vector is stored with its embedder's model id, so switching provider or model later is a
 * re-embedding job, not a silent mix of incomparable vectors.
 */
export const embeddingSettings = {
  /**
   * `local` runs all-MiniLM-L6-v2 in process from the files `npm ci` installed (no network at run
   * time); `openai` calls any OpenAI-compatible /v1/embeddings server; `hash` is feature hashing,
   * a weightless baseline.
   */
  EMBEDDING_PROVIDER: z.enum(['local', 'openai', 'hash']).default('local'),
  /** Unset: all-MiniLM-L6-v2 (local), text-embedding-3-small (openai), ignored by hash. */
  EMBEDDING_MODEL: env.optionalString(),
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
   * `float32` (the checkpoint's own, exact to 1e-4). Each has its own model id, so switching
   * re-embeds in the background rather than mixing vectors.
   */
  EMBEDDING_LOCAL_WEIGHTS: z.enum(['int8', 'float32']).default('int8'),
  /** Where `npm ci` put the local model (unset: `<repo>/.cache/models/all-MiniLM-L6-v2`). */
  MEMSTREAM_MODEL_DIR: env.optionalString(),
};

const embeddingSchema = z.object(embeddingSettings);
export type EmbeddingSettings = z.infer<typeof embeddingSchema>;
