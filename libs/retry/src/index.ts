export { backoffDelayMs, type Backoff } from './backoff.js';
export { isProgrammerError, retryOnError, type RetryOnErrorOptions } from './retry-on-error.js';
export { sleep } from './sleep.js';
export { RetriesExhausted, withRetry, type Attempt, type RetryOptions } from './with-retry.js';
