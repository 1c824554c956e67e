import type { MemstreamClient } from '@memstream/client';

export type Method = 'keyword' | 'vector' | 'hybrid' | 'rrf';
export const METHODS: readonly Method[] = ['hybrid', 'keyword', 'vector', 'rrf'];

export interface SearchInput {
  readonly query: string;
  readonly method: Method;
  readonly groupId?: string;
  readonly memoryTypes: readonly ('message' | 'episodic_memory')[];
  readonly topK: number;
}

/**
 * Runs the search with `explain`, so each hit comes with the parts of its score as the server
 * fused them (its rank and score in each method's list, the fusion's terms and divisor): the
 * console shows what the ranking did and works nothing out itself.
 */
export async function runSearch(client: MemstreamClient, input: SearchInput, signal: AbortSignal) {
  const { result } = await client.evermemos.search(
    {
      query: input.query,
      retrieve_method: input.method,
      top_k: input.topK,
      memory_types: [...input.memoryTypes],
      explain: true,
      ...(input.groupId ? { group_id: input.groupId } : {}),
    },
    { signal },
  );
  return { hits: result.memories, method: result.retrieve_method };
}
