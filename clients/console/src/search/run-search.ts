import type { MemstreamClient, SearchHit } from '@memstream/client';

export type Method = 'keyword' | 'vector' | 'hybrid' | 'rrf';
export const METHODS: readonly Method[] = ['hybrid', 'keyword', 'vector', 'rrf'];

export interface SearchInput {
  readonly query: string;
  readonly method: Method;
  readonly groupId?: string;
  readonly memoryTypes: readonly ('message' | 'episodic_memory')[];
  readonly topK: number;
}

export interface ScoredHit {
  readonly hit: SearchHit;
  /** The item's score when the same scope is searched by keyword (BM25) alone; null when not in its first 100. */
  readonly keywordAlone: number | null;
  /** ...and by vector (cosine) alone. */
  readonly vectorAlone: number | null;
}

/** How many results the one-method searches look through for a hit's own score. */
const SIDE_TOP_K = 100;

const keyOf = (h: SearchHit) => `${h.memory_type}\u0000${h.group_id}\u0000${h.id}`;

/**
 * Runs the search, and beside it the same search by keyword alone and by vector alone, so each
 * hit shows the two scores the API gives it for those methods. The API answers one combined
 * score per hit and not its parts (hybrid's weighted keyword and vector terms after min-max
 * rescaling, and its context, memory, participant, date and when terms; rrf's ranks), so the
 * console shows those two scores for what they are and does not compute parts it was not given.
 */
export async function runSearch(client: MemstreamClient, input: SearchInput, signal: AbortSignal) {
  const request = (method: Method, topK: number) =>
    client.evermemos.search(
      {
        query: input.query,
        retrieve_method: method,
        top_k: topK,
        memory_types: [...input.memoryTypes],
        ...(input.groupId ? { group_id: input.groupId } : {}),
      },
      { signal },
    );
  const [main, keyword, vector] = await Promise.all([
    request(input.method, input.topK),
    request('keyword', SIDE_TOP_K),
    request('vector', SIDE_TOP_K),
  ]);
  const scoreIn = (hits: readonly SearchHit[]) => new Map(hits.map((h) => [keyOf(h), h.score]));
  const byKeyword = scoreIn(keyword.result.memories);
  const byVector = scoreIn(vector.result.memories);
  const hits: ScoredHit[] = main.result.memories.map((hit) => ({
    hit,
    keywordAlone: byKeyword.get(keyOf(hit)) ?? null,
    vectorAlone: byVector.get(keyOf(hit)) ?? null,
  }));
  return { hits, method: main.result.retrieve_method };
}
