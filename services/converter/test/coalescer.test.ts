import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HandlerContext } from '@memstream/bus';
import { createLogger } from '@memstream/logging';
import { coalesce } from '../src/coalescer.js';

const ctx: HandlerContext = {
  attempt: 1,
  log: createLogger({ service: 'test', level: 'silent' }),
  correlationIds: [],
  signal: new AbortController().signal,
};

/** A flush that stays open until released, recording what each flush took and how many ran at once. */
function gatedFlush() {
  const flushes: number[][] = [];
  const gates: Array<() => void> = [];
  let open = 0;
  let mostAtOnce = 0;
  const flush = async (items: readonly number[]) => {
    flushes.push([...items]);
    mostAtOnce = Math.max(mostAtOnce, ++open);
    await new Promise<void>((resolve) => gates.push(resolve));
    open--;
  };
  const releaseAll = () => gates.splice(0).forEach((release) => release());
  return { flush, flushes, releaseAll, mostAtOnce: () => mostAtOnce, waiting: () => gates.length };
}

/** Lets every flush that can start do so: a few turns of the event loop, not a sleep. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

test('a backlog is split into flushes of at most maxItems whole batches, running side by side', async () => {
  const gated = gatedFlush();
  const handle = coalesce(gated.flush, { parallel: 3, maxItems: 4 });
  // eight partitions hand over a batch of two at once, as after one fetch of a backlog
  const done = Array.from({ length: 8 }, (_, p) => handle([p * 10, p * 10 + 1], ctx));
  await settle();
  assert.equal(gated.waiting(), 3, 'three flushes at once');
  for (const taken of gated.flushes) assert.ok(taken.length <= 4, `a flush took ${taken.length}`);
  while (gated.flushes.flat().length < 16) {
    gated.releaseAll();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  gated.releaseAll();
  await Promise.all(done);
  assert.deepEqual(
    gated.flushes.flat().sort((a, b) => a - b),
    Array.from({ length: 8 }, (_, p) => [p * 10, p * 10 + 1]).flat(),
    'every item flushed once',
  );
  assert.ok(gated.mostAtOnce() <= 3);
});

test('light load, never more queued than one flush takes, goes as one flush at a time and is merged', async () => {
  const gated = gatedFlush();
  const handle = coalesce(gated.flush, { parallel: 3, maxItems: 100 });
  const first = handle([1], ctx);
  await settle();
  // batches arriving while a flush runs wait for it, then go together
  const later = [handle([2], ctx), handle([3], ctx), handle([4], ctx)];
  await settle();
  assert.equal(gated.waiting(), 1, 'no second flush beside the first');
  gated.releaseAll();
  await first;
  await settle();
  assert.deepEqual(gated.flushes, [[1], [2, 3, 4]]);
  gated.releaseAll();
  await Promise.all(later);
  assert.equal(gated.mostAtOnce(), 1);
});

test("the next flush waits for the last one's tail, so the partitions it releases go in it too", async () => {
  const flushes: number[][] = [];
  const tails: Array<() => void> = [];
  // the statement returns at once; the tail (the stored events' publish) stays open until released
  const handle = coalesce<number>(
    async (items) => {
      flushes.push([...items]);
      return { pending: new Promise<void>((resolve) => tails.push(resolve)) };
    },
    { parallel: 3, maxItems: 100 },
  );
  // a partition hands over its next batch once its last one is done, as both buses do
  const partition = async (first: number, next: number) => {
    await handle([first], ctx);
    await handle([next], ctx);
  };
  const a = partition(1, 4);
  const b = partition(2, 5);
  await settle();
  assert.deepEqual(flushes, [[1, 2]]);
  const c = handle([3], ctx); // another partition's batch, while the first flush's tail is open
  await settle();
  assert.deepEqual(flushes, [[1, 2]], 'the next flush waits for the tail');
  tails.splice(0).forEach((release) => release());
  await settle();
  assert.deepEqual(
    flushes,
    [
      [1, 2],
      [3, 4, 5],
    ],
    'the released partitions join the waiting batch',
  );
  tails.splice(0).forEach((release) => release());
  await Promise.all([a, b, c]);
});

test('a failed flush fails only the batches it took', async () => {
  const handle = coalesce<number>(
    async (items) => {
      if (items.includes(13)) throw new Error('boom');
    },
    { parallel: 2, maxItems: 2 },
  );
  const results = await Promise.allSettled([handle([11, 12], ctx), handle([13], ctx), handle([14], ctx)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'rejected'],
  );
});
