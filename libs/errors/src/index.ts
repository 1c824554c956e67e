export { AppError, CATALOGUE, isAppError, isRetriable, type ErrorCode } from './app-error.js';
export { upstreamError } from './upstream-error.js';
export { isUnavailable } from './unavailable.js';
export { inCauseChain, type ChainedError } from './cause-chain.js';
