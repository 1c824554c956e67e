export { registerReadApi, readApiSettingsOf, readApiDocs, type ReadApiDeps } from './app.js';
export { readApiEnv, readApiSettings, type ReadApiConfig } from './config.js';
// The ranking's pure parts, for bench/retrieval.ts to fit and cross-validate its weights on the lists the API returns, and for tests.
export { weightedFusion } from './search/fuse.js';
export { intentOf, messageKey, rankByFeatures, rankFeatures, type MemoryCandidate, type MessageCandidate, type RankFeatures, type RankingParams } from './search/rank.js';
export { HYBRID_RANKING, candidatePool } from './search/search-memories.js';
export { timeExpressions, overlaps, type DayRange } from './search/time-expressions.js';
