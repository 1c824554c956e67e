import type { Embedder } from '@memstream/embedding';

/**
 * What search needs of an embedder: the model whose vectors it reads, and query vectors. Not
 * `close`: the process that made the embedder owns it (the all-in-one shares one with the indexer).
 */
export type QueryEmbedder = Pick<Embedder, 'model' | 'dimension' | 'embed'>;
