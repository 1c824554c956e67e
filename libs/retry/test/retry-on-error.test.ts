import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryOnError } from '@memstream/retry';

const backoff = { initialDelayMs: 4, maxDelayMs: 10 };

test('a failure worth retrying is tried again after a growing, capped, jittered wait until it succeeds', async () => {
  const waits: number[] = [];
  let calls = 0;
  const value = await retryOnError(
    async (attempt) => {
      calls++;
      if (attempt < 4) throw new Error(`broker not ready (${attempt})`);
      return 'topics created';
    },
    { attempts: 6, backoff, random: () => 1, onRetry: ({ delayMs }) => void waits.push(delayMs) },
  );
  assert.deepEqual([value, calls, waits], ['topics created', 4, [4, 8, 10]]);

  // the jitter keeps at least half of each wait
  const least: number[] = [];
  await retryOnError(
    async (attempt) => {
      if (attempt < 3) throw new Error('busy');
    },
    { attempts: 3, backoff, random: () => 0, onRetry: ({ delayMs }) => void least.push(delayMs) },
  );
  assert.deepEqual(least, [2, 4]);
});

test('the last failure is thrown as it was once the attempts run out', async () => {
  let calls = 0;
  const last = await retryOnError(
    async (attempt) => {
      calls++;
      throw new Error(`refused ${attempt}`);
    },
    { attempts: 3, backoff },
  ).catch((e: unknown) => e);
  assert.deepEqual([(last as Error).message, calls], ['refused 3', 3]);
});

test('what the caller calls not retriable, and any programmer error, is thrown at the first try', async () => {
  let calls = 0;
  const refused = await retryOnError(
    async () => {
      calls++;
      throw Object.assign(new Error('duplicate key'), { code: '23505' });
    },
    { attempts: 5, backoff, retriable: (err) => (err as { code?: string }).code === '40001' },
  ).catch((e: unknown) => e);
  assert.deepEqual([(refused as { code: string }).code, calls], ['23505', 1]);

  for (const bug of [new TypeError('x is undefined'), new RangeError('bad length'), new ReferenceError('y')]) {
    let tries = 0;
    const thrown = await retryOnError(
      async () => {
        tries++;
        throw bug;
      },
      { attempts: 5, backoff, retriable: () => true },
    ).catch((e: unknown) => e);
    assert.deepEqual([thrown, tries], [bug, 1]);
  }
});

test('an abort ends the wait between tries with its reason', async () => {
  const stop = new AbortController();
  let calls = 0;
  const ended = retryOnError(
    async () => {
      calls++;
      throw new Error('unavailable');
    },
    {
      attempts: 5,
      backoff: { initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      signal: stop.signal,
      onRetry: () => stop.abort(new Error('shutting down')),
    },
  );
  await assert.rejects(ended, /shutting down/);
  assert.equal(calls, 1);
});

test('with no limit on attempts, the predicate decides from the failure and the try it ended', async () => {
  // the bus's rule: the work's own failures count, an unavailable dependency is waited for
  const retriable = (err: unknown, attempt: number) => (err as Error).message === 'unavailable' || attempt < 2;
  const seen: string[] = [];
  const last = await retryOnError(
    async (attempt) => {
      const message = attempt <= 4 ? 'unavailable' : 'bad row';
      seen.push(message);
      throw new Error(message);
    },
    { attempts: Number.POSITIVE_INFINITY, backoff: { initialDelayMs: 0, maxDelayMs: 0 }, retriable },
  ).catch((e: unknown) => e);
  assert.deepEqual([(last as Error).message, seen.length], ['bad row', 5]);
});
