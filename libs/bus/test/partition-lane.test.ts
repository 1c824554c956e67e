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

test('records gathered while the lane is busy reach the next handling together, in order, and are not taken again', async () => {
  const lane = new PartitionLane();
  const first = gate();
  const handled: number[][] = [];
  const handle = async (records: number[]) => {
    handled.push(records);
    if (handled.length === 1) await first.opened;
  };
  lane.gather('1', [0, 1], handle);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(handled, [[0, 1]], 'the first batch is being handled');
  lane.gather('3', [2, 3], handle);
  lane.gather('4', [4], handle);
  assert.equal(lane.waiting, 3);
  assert.deepEqual(lane.unseen(messages(3, 4, 5)), messages(5));
  first.open();
  await lane.idle;
  assert.deepEqual(
    handled,
    [
      [0, 1],
      [2, 3, 4],
    ],
    'one handling for what was gathered meanwhile',
  );
  assert.equal(lane.waiting, 0);
  lane.gather('5', [5], handle);
  await lane.idle;
  assert.deepEqual(handled.at(-1), [5], 'a lane at rest hands the next batch on at once');
});

test('handled progress stays uncommitted until a commit of it succeeds, and a lost lane offers none', () => {
  const lane = new PartitionLane();
  assert.equal(lane.uncommitted, undefined);
  lane.handled('10');
  assert.equal(lane.uncommitted, '10');
  // a commit of '10' that failed tells the lane nothing: the next commit carries it again
  assert.equal(lane.uncommitted, '10');
  lane.handled('25'); // more handled while a commit of '10' was on its way, which then succeeded
  lane.committed('10');
  assert.equal(lane.uncommitted, '25');
  lane.committed('25');
  assert.equal(lane.uncommitted, undefined);
  lane.handled('30');
  const next = lane.successor();
  assert.equal(lane.uncommitted, undefined, "the partition is another member's: its progress is theirs to redo");
  assert.equal(next.uncommitted, undefined);
});

test('after a rejoin that kept the partition, handled progress is offered to a commit again', () => {
  const lane = new PartitionLane();
  lane.handled('40');
  lane.committed('40'); // what kafkajs answered, perhaps without sending it
  assert.equal(lane.uncommitted, undefined);
  lane.rejoined();
  assert.equal(lane.uncommitted, '40', 'the group may hold an older offset: commit it again');
  // the new generation hands the same records over again, and they are handled again up to 40
  lane.handled('40');
  assert.equal(lane.uncommitted, '40');
  lane.committed('40');
  assert.equal(lane.uncommitted, undefined);
});
