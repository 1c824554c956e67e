// Ranking and retrieval: the read API searches with them; bench/retrieval.ts fits and
// cross-validates the weights on the lists the API returns with the same pure parts.
export { RRF_K, weightedFusion, rrfFusion } from './fuse.js';
export {
  intentOf,
  messageKey,
  rankByFeatures,
  rankFeatures,
  type MemoryCandidate,
  type MessageCandidate,
  type QueryIntent,
  type RankFeatures,
  type RankingParams,
} from './rank.js';
export {
  HYBRID_RANKING,
  OWN_WORDS_RANKING,
  candidatePool,
  searchMemories,
  type RetrieveMethod,
  type SearchRequest,
} from './search-memories.js';
export {
  partsTotal,
  type ExplainedHit,
  type ListStanding,
  type ScoreParts,
  type ScoreTerm,
} from './score-parts.js';
export { timeExpressions, overlaps, type DayRange } from './time-expressions.js';
export type { QueryEmbedder } from './query-embedder.js';
