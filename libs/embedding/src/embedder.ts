/**
 * Queries and documents are embedded alike by every provider here; the purpose is passed along
 * for models that embed them differently (e5's `query:` / `passage:` prefixes, for one).
 */
export type EmbeddingPurpose = 'query' | 'document';

/** Text in, unit vectors out: the one interface every provider implements. */
export interface Embedder {
  /** Stable id stored with every vector, e.g. 'local/all-MiniLM-L6-v2' or 'openai/text-embedding-3-small'. */
  readonly model: string;
  readonly dimension: number;
  /**
   * 'turn-before': a message is embedded after the turn before it (the indexer builds that text;
   * the model id says so, so vectors made either way never mix). Unset: every text alone.
   */
  readonly context?: 'turn-before';
  /** One L2-normalised vector per text, in order. Must be safe to call concurrently. */
  embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]>;
  close(): Promise<void>;
}
