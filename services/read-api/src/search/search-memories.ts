import { keywordSearch, vectorSearch, type SearchFilters, type SearchHit, type Store } from '@memstream/store';
import { rrfFusion, weightedFusion } from './fuse.js';
import type { QueryEmbedder } from './query-embedder.js';

export type RetrieveMethod = 'keyword' | 'vector' | 'hybrid' | 'rrf';

export interface SearchRequest {
  readonly query: string;
  readonly method: RetrieveMethod;
  readonly topK: number;
  readonly filters: SearchFilters;
}

/** Hybrid's weight of the (rescaled) vector score; the keyword score gets the rest. Chosen on LoCoMo: see weightedFusion. */
export const HYBRID_VECTOR_WEIGHT = 0.4;

/**
 * Runs one search. The fused methods take more candidates from each side than they return
 * (five times top_k, at least 50), so a hit ranked modestly by both still surfaces.
 */
export async function searchMemories(store: Store, embedder: QueryEmbedder, request: SearchRequest): Promise<SearchHit[]> {
  const { query, method, topK, filters } = request;
  if (method === 'keyword') return keywordSearch(store, query, filters, topK);
  const queryVector = async () => (await embedder.embed([query], 'query'))[0]!;
  if (method === 'vector') return vectorSearch(store, await queryVector(), embedder.model, filters, topK);
  const pool = Math.max(50, topK * 5);
  const [keyword, vector] = await Promise.all([
    keywordSearch(store, query, filters, pool),
    queryVector().then((v) => vectorSearch(store, v, embedder.model, filters, pool)),
  ]);
  const fused = method === 'rrf' ? rrfFusion([keyword, vector]) : weightedFusion(keyword, vector, HYBRID_VECTOR_WEIGHT);
  return fused.slice(0, topK);
}
