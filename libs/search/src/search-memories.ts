import {
  keywordSearch,
  messagesWithoutVectors,
  turnContext,
  vectorSearch,
  withScopeListed,
  type SearchFilters,
  type SearchHit,
  type Store,
} from '@memstream/store';
import { rrfFusion } from './fuse.js';
import type { QueryEmbedder } from './query-embedder.js';
import { contextualCandidates } from './candidates.js';
import { intentOf, rankByFeatures, rankFeatures, type RankingParams } from './rank.js';
import { singleMethodParts, standings, withStandings, type ExplainedHit } from './score-parts.js';

export type RetrieveMethod = 'keyword' | 'vector' | 'hybrid' | 'rrf';

export interface SearchRequest {
  readonly query: string;
  readonly method: RetrieveMethod;
  readonly topK: number;
  readonly filters: SearchFilters;
  /** Each hit carries `parts`, what its score is made of (see ScoreParts). */
  readonly explain?: boolean;
}

/**
 * Hybrid's weights, chosen by cross-validation on LoCoMo's dev conversations (fit on three,
 * measured on the fourth; see bench/retrieval.ts and the README's search section).
 */
export const HYBRID_RANKING: RankingParams = {
  vectorWeight: 0.4,
  context: 0.5,
  memory: 0.2,
  participant: 0.3,
  date: 0.4,
  when: 0.1,
};

/**
 * For searches whose visibility rules are applied after ranking (the memory-service API drops
 * agent-only messages and other channels from a person's hits afterwards): no rank lent by
 * neighbours or memories, which may hold what the caller cannot see.
 */
export const OWN_WORDS_RANKING: RankingParams = { ...HYBRID_RANKING, context: 0, memory: 0 };

/** How many candidates each method gives the fused methods: enough that a turn ranked modestly by both still surfaces. */
export const candidatePool = (topK: number) => Math.max(100, topK * 2);

/**
 * Runs one search. keyword and vector are the methods alone; rrf fuses their ranks; hybrid fuses
 * their scores and adds what the question and the conversation say beside the words (see
 * rankByFeatures): the turns around each candidate, the memories made from it, the participants
 * and days the question names.
 */
export async function searchMemories(
  store: Store,
  embedder: QueryEmbedder,
  request: SearchRequest,
  ranking = HYBRID_RANKING,
): Promise<ExplainedHit[]> {
  const { query, method, topK, explain = false } = request;
  const filters = await withScopeListed(store, request.filters);
  const explained = (hits: SearchHit[], alone: 'keyword' | 'vector') =>
    explain ? singleMethodParts(hits, alone) : hits;
  if (method === 'keyword') return explained(await keywordSearch(store, query, filters, topK), 'keyword');
  const queryVector = async () => (await embedder.embed([query], 'query'))[0]!;
  if (method === 'vector')
    return explained(await vectorSearch(store, await queryVector(), embedder.model, filters, topK), 'vector');
  const placed = (hits: ExplainedHit[], keyword: SearchHit[], vector: SearchHit[]) =>
    explain ? withStandings(hits, standings(keyword), standings(vector)) : hits;
  if (method === 'rrf') {
    const pool = Math.max(50, topK * 5);
    const [keyword, vector] = await Promise.all([
      keywordSearch(store, query, filters, pool),
      queryVector().then((v) => vectorSearch(store, v, embedder.model, filters, pool)),
    ]);
    const fused = rrfFusion([keyword, vector], explain ? ['keyword', 'vector'] : undefined);
    return placed(fused.slice(0, topK), keyword, vector);
  }
  const pool = candidatePool(topK);
  // Memories are searched even when only messages are asked for: a memory that matches lends
  // rank to the turns it was made from.
  const searched: SearchFilters = ranking.memory > 0 ? { ...filters, kinds: ['message', 'episodic_memory'] } : filters;
  const [keyword, embedded] = await Promise.all([keywordSearch(store, query, searched, pool), queryVector()]);
  // Which keyword hits have no vector yet is read before the vector search, never after it (see
  // messagesWithoutVectors): a stored message the indexer has not reached counts as matching by
  // vector as well as by words, or it would fall below older turns that match by vector alone.
  const keywordMessages = keyword.filter((h) => h.kind === 'message').map((h) => h.item_id);
  const waiting = await messagesWithoutVectors(store, embedder.model, keywordMessages);
  const vector = await vectorSearch(store, embedded, embedder.model, searched, pool);
  const messageIds = [...new Set([...keyword, ...vector].filter((h) => h.kind === 'message').map((h) => h.item_id))];
  const context = filters.kinds.includes('message')
    ? await turnContext(store, messageIds, filters, { neighbours: ranking.context > 0 })
    : { turns: [], neighbours: [] };
  const { messages, memories, participants } = contextualCandidates(keyword, vector, context, waiting);
  const intent = intentOf(query, participants, Date.now());
  const features = rankFeatures(intent, filters.kinds.includes('message') ? messages : [], memories);
  const ranked = rankByFeatures(features, ranking, filters.kinds.includes('episodic_memory'), explain);
  return placed(ranked.slice(0, topK), keyword, vector);
}
