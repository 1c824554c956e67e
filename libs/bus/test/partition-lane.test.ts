import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionLane } from '../src/partition-lane.js';

const messages = (...offsets: number[]) => offsets.map((o) => ({ offset: String(o) }));

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

test('a lane handles the batches it takes one after another, in the order taken', async () => {
  const lane = new PartitionLane();
  const first = gate();
  const log: string[] = [];
  lane.take('9', async () => {
    log.push('first started');
    await first.opened;
    log.push('first done');
  });
  lane.take('19', async () => void log.push('second'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ['first started'], 'the second batch waits for the first');
  first.open();
  await lane.idle;
  assert.deepEqual(log, ['first started', 'first done', 'second']);
});

test('records a lane has taken are not taken again when kafkajs fetches them a second time', () => {
  const lane = new PartitionLane();
  assert.deepEqual(lane.unseen(messages(0, 1, 2)), messages(0, 1, 2), 'a new lane takes everything');
  lane.take('2', async () => undefined);
  assert.deepEqual(lane.unseen(messages(1, 2, 3, 4)), messages(3, 4), 'after a rejoin, from the committed offset');
});

test("a partition's new lane starts after the lost one's work ends, and the lost one learns it is not current", async () => {
  const lost = new PartitionLane();
  const work = gate();
  const log: string[] = [];
  lost.take('4', async () => {
    await work.opened;
    log.push(`old lane current: ${lost.current}`);
  });
  const next = lost.successor();
  assert.equal(next.current, true);
  assert.deepEqual(next.unseen(messages(0, 1)), messages(0, 1), 'the new lane holds nothing yet');
  next.take('1', async () => void log.push('new lane'));
  work.open();
  await next.idle;
  assert.deepEqual(log, ['old lane current: false', 'new lane']);
});
