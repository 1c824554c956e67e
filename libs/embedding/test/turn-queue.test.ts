import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnQueue } from '../src/local/turn-queue.js';

test('one job runs at a time, and urgent jobs waiting go before earlier normal ones', async () => {
  const queue = new TurnQueue();
  const order: string[] = [];
  let release!: () => void;
  const running = queue.run(false, () =>
    new Promise<void>((resolve) => (release = resolve)).then(() => void order.push('running')),
  );
  const queued = [
    queue.run(false, async () => void order.push('bulk 1')),
    queue.run(false, async () => void order.push('bulk 2')),
    queue.run(true, async () => void order.push('query')),
  ];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, [], 'nothing overtakes the running job');
  release();
  await Promise.all([running, ...queued]);
  assert.deepEqual(order, ['running', 'query', 'bulk 1', 'bulk 2']);
});

test('a failing job passes its error to its caller and the queue goes on', async () => {
  const queue = new TurnQueue();
  await assert.rejects(
    queue.run(false, async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(await queue.run(true, async () => 42), 42);
});
