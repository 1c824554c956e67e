/** What an error, or an error it wraps, may carry: drivers and our AppError nest the original failure. */
export interface ChainedError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly type?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  /** kafkajs's wrappers (KafkaJSNumberOfRetriesExceeded and others) keep the failure here. */
  readonly originalError?: unknown;
}

/**
 * Whether `test` holds for `err` or for any error it wraps, through `cause` and kafkajs's
 * `originalError`. The walk stops after `maxDepth` links, so a chain that loops ends.
 */
export function inCauseChain(err: unknown, test: (e: ChainedError) => boolean, maxDepth = 8): boolean {
  const walk = (e: unknown, depth: number): boolean => {
    if (e === null || typeof e !== 'object' || depth > maxDepth) return false;
    const chained = e as ChainedError;
    return test(chained) || walk(chained.cause, depth + 1) || walk(chained.originalError, depth + 1);
  };
  return walk(err, 0);
}
