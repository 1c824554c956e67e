export { closeEpisodes, episodeOf, estimateTokens, type BoundaryRules } from './boundaries.js';
export { closeSpan, closeSpanIn, type SpanOutcome } from './close-span.js';
export {
  announceExtracted,
  ExtractionWaiter,
  type ExtractionWaiterOptions,
  type WaitClock,
} from './extraction-waiter.js';
export { closedBy } from './closed-by.js';
export { hintClosing, listenForClosingHints } from './closing-hints.js';
export { OpenSpanTracker, type TrackedMessage } from './open-span-tracker.js';
