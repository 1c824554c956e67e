import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lifecycle, startPeriodicJob, type JobClock } from '@memstream/runtime';
import { captureLogger } from '../../../test/helpers/logger.js';

/** Time that moves only when the test says so. */
function manualClock(): JobClock & { advance(ms: number): void; waits(): number[] } {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      timers.set(next, { at: now + ms, fn });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
    waits: () => [...timers.values()].map((t) => t.at - now),
  };
}

/** A promise the test settles. */
function gate(): { promise: Promise<void>; open(): void; fail(err: Error): void } {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/**
 * Lets promise callbacks run until `done` holds. Counted in event-loop turns, not time: what the
 * job does between two timers takes a handful, so a thousand means it is never going to happen.
 */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; !done(); turn++) {
    if (turn === 1000) throw new Error('the condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('a job first runs one period and its jitter after the start, then again a period after each start', async () => {
  const { log } = captureLogger();
  const clock = manualClock();
  const starts: number[] = [];
  const job = startPeriodicJob(
    { name: 'sweep', everyMs: 1000, jitterMs: 200, log, clock, random: () => 0.5 },
    async () => {
      starts.push(clock.now());
    },
  );
  assert.deepEqual(clock.waits(), [1100]);
  clock.advance(1099);
  assert.deepEqual(starts, []);
  clock.advance(1);
  await until(() => clock.waits().length === 1);
  clock.advance(1100);
  await until(() => clock.waits().length === 1);
  assert.deepEqual(starts, [1100, 2200]);
  await job.stop();
  assert.deepEqual(clock.waits(), []);
});

test('a run that outlasts the period is never overlapped: the next starts when it ends', async () => {
  const { log } = captureLogger();
  const clock = manualClock();
  let inProgress = 0;
  let most = 0;
  const runs: Array<ReturnType<typeof gate>> = [];
  const job = startPeriodicJob({ name: 'slow', everyMs: 1000, jitterMs: 0, log, clock }, async () => {
    inProgress++;
    most = Math.max(most, inProgress);
    const run = gate();
    runs.push(run);
    await run.promise.finally(() => inProgress--);
  });
  clock.advance(1000);
  assert.equal(runs.length, 1);
  clock.advance(5000); // five periods pass while the first run is still going
  assert.deepEqual([runs.length, clock.waits()], [1, []]);
  runs[0]!.open();
  await until(() => clock.waits().length === 1);
  assert.deepEqual(clock.waits(), [0], 'the next run is due at once, not five runs at once');
  clock.advance(0);
  assert.equal(runs.length, 2);
  // a run shorter than the period: the next one keeps the period from this one's start
  clock.advance(300);
  runs[1]!.open();
  await until(() => clock.waits().length === 1);
  assert.deepEqual(clock.waits(), [700]);
  assert.equal(most, 1);
  await job.stop();
});

test('a failing run is logged with its error and the job keeps its schedule', async () => {
  const { log, lines } = captureLogger();
  const clock = manualClock();
  let runs = 0;
  const job = startPeriodicJob({ name: 'purge', everyMs: 1000, jitterMs: 0, log, clock }, async () => {
    runs++;
    throw new Error('database went away');
  });
  clock.advance(1000);
  await until(() => clock.waits().length === 1);
  clock.advance(1000);
  await until(() => clock.waits().length === 1);
  assert.equal(runs, 2);
  const failures = lines().filter((l) => l['job'] === 'purge' && l['level'] === 40);
  assert.equal(failures.length, 2);
  assert.match(String((failures[0]!['err'] as { message?: unknown }).message), /database went away/);
  await job.stop();
});

test('the lifecycle stops the job: its run in progress is aborted and waited for, and none follows', async () => {
  const { log, lines } = captureLogger();
  const clock = manualClock();
  const life = new Lifecycle({ log, shutdownTimeoutMs: 60_000 });
  const order: string[] = [];
  life.defer('store', async () => void order.push('store closed'));
  let seen: AbortSignal | undefined;
  const run = gate();
  let runs = 0;
  startPeriodicJob({ name: 'index sweep', everyMs: 1000, log, clock, lifecycle: life }, async (signal) => {
    runs++;
    seen = signal;
    signal.addEventListener('abort', () => run.fail(signal.reason as Error));
    try {
      await run.promise;
    } finally {
      order.push('run ended');
    }
  });
  clock.advance(1100);
  assert.equal(runs, 1);
  const shutdown = life.shutdown();
  assert.equal(seen?.aborted, true);
  assert.equal(await shutdown, 0);
  // the aborted run ended before anything it uses was closed; a stopped job's failure is not an alarm
  assert.deepEqual(order, ['run ended', 'store closed']);
  assert.ok(lines().every((l) => l['level'] !== 40));
  clock.advance(10_000);
  assert.deepEqual([runs, clock.waits()], [1, []]);
});

test('stop waits for a run in progress to finish, and a second stop is the same stop', async () => {
  const { log } = captureLogger();
  const clock = manualClock();
  const run = gate();
  let ended = false;
  const job = startPeriodicJob({ name: 'summary sweep', everyMs: 1000, jitterMs: 0, log, clock }, async () => {
    await run.promise;
    ended = true;
  });
  clock.advance(1000);
  let stopped = false;
  const stopping = job.stop().then(() => (stopped = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, false, 'stop is still waiting for the run');
  run.open();
  await stopping;
  assert.equal(ended, true);
  assert.deepEqual(clock.waits(), []);
  assert.equal(job.stop(), job.stop());
});
