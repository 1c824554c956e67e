export { closeEpisodes, episodeOf, estimateTokens, type BoundaryRules } from './boundaries.js';
export { closeSpan, type SpanOutcome } from './close-span.js';
