import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Slots } from '@memstream/runtime';

/** A piece of work that ends when the test says so, and records that it started. */
function gated(started: string[], name: string) {
  let end!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    end = () => resolve(name);
    fail = reject;
  });
  return {
    work: async () => {
      started.push(name);
      return done;
    },
    end,
    fail,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('two slots: the third piece of work waits until one of the first two ends, then runs; in arrival order', async () => {
  const slots = new Slots(2);
  const started: string[] = [];
  const pieces = ['a', 'b', 'c', 'd'].map((n) => gated(started, n));
  const results = pieces.map((p) => slots.run(p.work));
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  assert.equal(slots.waiting, 2);
  pieces[1]!.end();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c']);
  pieces[0]!.end();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  assert.equal(slots.waiting, 0);
  pieces[2]!.end();
  pieces[3]!.end();
  assert.deepEqual(await Promise.all(results), ['a', 'b', 'c', 'd']);
});

test('work that throws frees its slot, and its caller gets the error', async () => {
  const slots = new Slots(1);
  const started: string[] = [];
  const [first, second] = ['a', 'b'].map((n) => gated(started, n));
  const failing = slots.run(first!.work);
  const next = slots.run(second!.work);
  await settle();
  assert.deepEqual(started, ['a']);
  first!.fail(new Error('refused'));
  await assert.rejects(failing, /refused/);
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  second!.end();
  assert.equal(await next, 'b');
});

test('never more at once than the slots, however many callers and whatever order they end in', async () => {
  const slots = new Slots(3);
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      slots.run(async () => {
        inside++;
        most = Math.max(most, inside);
        for (let k = 0; k < (i * 7) % 5; k++) await settle();
        inside--;
      }),
    ),
  );
  assert.equal(most, 3);
  assert.equal(slots.waiting, 0);
});

test('a size that is not a positive integer is refused', () => {
  for (const size of [0, -1, 1.5, Number.NaN]) assert.throws(() => new Slots(size), RangeError);
});
