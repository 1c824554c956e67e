import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { startLeaseSweeps } from '@memstream/governance';

const log = createLogger({ service: 'test', level: 'silent' });

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((res) => (open = res));
  return { opened, open };
}

test('a woken sweep takes work until none is left, never runs beside another, and runs again when woken meanwhile', async (t) => {
  const queue = ['a', 'b', 'c'];
  const taken: string[] = [];
  let inFlight = 0;
  let most = 0;
  let sweeps = 0;
  const held = gate();
  const sweeping = gate();
  const runner = startLeaseSweeps(
    [
      {
        name: 'erasure',
        everyMs: 3_600_000,
        async takeOne() {
          inFlight += 1;
          most = Math.max(most, inFlight);
          if (taken.length === 0) {
            sweeps += 1;
            sweeping.open();
            await held.opened;
          }
          const next = queue.shift();
          if (next !== undefined) taken.push(next);
          inFlight -= 1;
          if (next === undefined) sweeps += 1;
          return next !== undefined;
        },
      },
    ],
    log,
  );
  t.after(() => runner.stop());
  assert.deepEqual(runner.running, ['erasure']);
  runner.wake('erasure');
  await sweeping.opened;
  // woken while the first sweep holds: another sweep after it, none beside it
  runner.wake('erasure');
  runner.wake('erasure');
  queue.push('d');
  held.open();
  while (sweeps < 3) await new Promise((r) => setImmediate(r));
  assert.deepEqual(taken, ['a', 'b', 'c', 'd']);
  assert.equal(most, 1);
  assert.throws(() => runner.wake('nothing'), /no governance work named nothing/);
});

test('stop aborts the sweep in progress and waits for it; a failing sweep is logged and the next one runs', async () => {
  const started = gate();
  let fails = 1;
  let ran = 0;
  let aborted = false;
  const runner = startLeaseSweeps(
    [
      {
        name: 'retention',
        everyMs: 3_600_000,
        async takeOne(signal) {
          ran += 1;
          if (fails-- > 0) throw new Error('a lost lease');
          started.open();
          await new Promise<void>((res) => signal.addEventListener('abort', () => res(), { once: true }));
          aborted = signal.aborted;
          return true;
        },
      },
    ],
    log,
  );
  runner.wake('retention');
  while (ran < 1) await new Promise((r) => setImmediate(r));
  // the failed sweep ended; a wake starts the next
  while (fails >= 0) {
    runner.wake('retention');
    await new Promise((r) => setImmediate(r));
  }
  await started.opened;
  await runner.stop();
  assert.equal(aborted, true, 'the sweep in progress saw the stop');
  assert.equal(ran, 2);
});
