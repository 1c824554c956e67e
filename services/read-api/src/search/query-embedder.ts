/** What search needs of an embedder: the model whose vectors it reads, and query vectors. */
export interface QueryEmbedder {
  readonly model: string;
  readonly dimension: number;
  embed(texts: readonly string[], purpose: 'query' | 'document'): Promise<Float32Array[]>;
}
