export { closeEpisodes, episodeOf, estimateTokens, type BoundaryRules } from './boundaries.js';
export { closeSpan, closeSpanIn, type SpanOutcome } from './close-span.js';
