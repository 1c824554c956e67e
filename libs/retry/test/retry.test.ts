import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelayMs, RetriesExhausted, sleep, withRetry, type Attempt } from '@memstream/retry';

test('the backoff doubles from the initial delay up to the cap, and its jitter keeps at least half of it', () => {
  const backoff = { initialDelayMs: 100, maxDelayMs: 1000 };
  const full = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(backoff, attempt, () => 1));
  assert.deepEqual(full, [100, 200, 400, 800, 1000, 1000]);
  const least = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(backoff, attempt, () => 0));
  assert.deepEqual(least, [50, 100, 200, 400, 500, 500]);
  for (let i = 0; i < 200; i++) {
    const d = backoffDelayMs(backoff, 3);
    assert.ok(d >= 200 && d <= 400, `${d} within [200, 400]`);
  }
});

test('withRetry tries again what asks for it, returns the first success, and says why it gave up', async () => {
  const fast = { initialDelayMs: 1, maxDelayMs: 2 };
  let calls = 0;
  const value = await withRetry(
    async (attempt): Promise<Attempt<string>> => {
      calls++;
      return attempt < 3 ? { kind: 'retry', reason: `try ${attempt} failed` } : { kind: 'done', value: 'ok' };
    },
    { ...fast, maxAttempts: 5 },
  );
  assert.deepEqual([value, calls], ['ok', 3]);

  const exhausted = await withRetry(
    async (attempt): Promise<Attempt<never>> => ({ kind: 'retry', reason: `try ${attempt} failed` }),
    { ...fast, maxAttempts: 4 },
  ).catch((e: unknown) => e);
  assert.ok(exhausted instanceof RetriesExhausted);
  assert.deepEqual([exhausted.attempts, exhausted.lastReason], [4, 'try 4 failed']);

  // a try that fails for good is not tried again
  let thrown = 0;
  const final = await withRetry(
    async () => {
      thrown++;
      throw new Error('for good');
    },
    { ...fast, maxAttempts: 4 },
  ).catch((e: unknown) => e);
  assert.deepEqual([(final as Error).message, thrown], ['for good', 1]);
});

test('a wait the other side asked for is longer than the backoff, and an abort ends it with its reason', async () => {
  const started = performance.now();
  let tries = 0;
  await withRetry(
    async (): Promise<Attempt<void>> =>
      ++tries === 1 ? { kind: 'retry', reason: 'busy', afterMs: 150 } : { kind: 'done', value: undefined },
    {
      initialDelayMs: 1,
      maxDelayMs: 1,
      maxAttempts: 2,
    },
  );
  assert.ok(performance.now() - started >= 140, 'waited for what was asked, not the 1 ms backoff');

  const stop = new AbortController();
  const waiting = sleep(60_000, stop.signal);
  stop.abort(new Error('shutting down'));
  await assert.rejects(waiting, /shutting down/);
  await assert.rejects(sleep(10, AbortSignal.abort(new Error('already gone'))), /already gone/);
});
