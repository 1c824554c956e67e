import { sleep } from '@memstream/retry';

/**
 * The bus's wait between tries: the one backoff sleep, ended by the subscription's stop signal as
 * StopRequested, which leaves the record uncommitted for redelivery.
 */
export async function waitOrStop(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (err) {
    if (signal?.aborted) throw new StopRequested();
    throw err;
  }
}

/** Thrown when a subscription stops while a record waits to be retried: it stays uncommitted. */
export class StopRequested extends Error {
  override readonly name = 'StopRequested';
  constructor() {
    super('subscription stopping; record left for redelivery');
  }
}
