import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { AppError } from '@memstream/errors';
import { COPIED_FROM_HEADER, MemoryBus, eraseTransportCopies, type Bus } from '@memstream/bus';

const log = createLogger({ service: 'test', level: 'silent' });

async function deadLetters(bus: Bus, topic: string): Promise<string[]> {
  return (await bus.scan(topic, await bus.ranges(topic))).map((r) => r.value.toString()).sort();
}

test('an erasure that stops between rewriting dead letters and cutting leaves one copy of each once run again', async (t) => {
  const bus = new MemoryBus(log, 2, new Metrics());
  t.after(() => bus.close());
  await bus.ensureTopics([{ name: 'in.dlq' }]);
  await bus.publish('in.dlq', [
    { key: 'g1', value: '{"sender":"alice","text":"a1"}' },
    { key: 'g1', value: '{"sender":"bob","text":"b1"}' },
    { key: 'g2', value: '{"sender":"carol","text":"c1"}' },
  ]);
  let failNextCut = true;
  const crashing: Bus = Object.create(bus, {
    deleteBelow: {
      value: async (...args: Parameters<Bus['deleteBelow']>) => {
        if (failNextCut) {
          failNextCut = false;
          throw new Error('process killed before the cut');
        }
        return bus.deleteBelow(...args);
      },
    },
  });
  const erasure = { userId: 'alice', consumed: [], deadLetters: ['in.dlq'] };
  await assert.rejects(eraseTransportCopies({ ...erasure, bus: crashing }), /killed/);
  // The rewritten copies are there beside the originals, alice's too.
  assert.equal((await deadLetters(bus, 'in.dlq')).length, 5);

  const counts = await eraseTransportCopies({ ...erasure, bus });
  assert.deepEqual(await deadLetters(bus, 'in.dlq'), [
    '{"sender":"bob","text":"b1"}',
    '{"sender":"carol","text":"c1"}',
  ]);
  assert.deepEqual(counts.deadLettersRemoved, { 'in.dlq': 1 });
  const kept = await bus.scan('in.dlq', await bus.ranges('in.dlq'));
  assert.ok(kept.every((r) => /^\d+:\d+$/.test(r.headers[COPIED_FROM_HEADER] ?? '')));
});

test('a dead-letter topic without the person is left as it is', async (t) => {
  const bus = new MemoryBus(log, 1, new Metrics());
  t.after(() => bus.close());
  await bus.publish('in.dlq', [{ key: 'g', value: '{"sender":"bob"}' }]);
  const counts = await eraseTransportCopies({ bus, userId: 'alice', consumed: [], deadLetters: ['in.dlq'] });
  assert.deepEqual(counts.deadLettersKept, { 'in.dlq': 0 });
  const [range] = await bus.ranges('in.dlq');
  assert.deepEqual(range, { partition: 0, start: 0, end: 1 });
});

test('a consumed topic is not cut while a group has not passed it: the erasure fails, to be run again', async (t) => {
  const bus = new MemoryBus(log, 1, new Metrics());
  t.after(() => bus.close());
  await bus.ensureTopics([{ name: 'in' }, { name: 'in.dlq' }]);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const sub = await bus.subscribe({
    groupId: 'slow',
    topic: 'in',
    dlqTopic: 'in.dlq',
    retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
    handler: () => held,
  });
  t.after(() => sub.stop());
  await bus.publish('in', [{ key: 'k', value: 'alice wrote this' }]);
  const erasure = {
    bus,
    userId: 'alice',
    consumed: [{ topic: 'in', groupIds: ['slow'] }],
    deadLetters: [],
    drainTimeoutMs: 50,
    pollMs: 10,
  };
  await assert.rejects(eraseTransportCopies(erasure), (err: unknown) => err instanceof AppError && err.retriable);
  assert.deepEqual(await bus.ranges('in'), [{ partition: 0, start: 0, end: 1 }]);
  release();
  const counts = await eraseTransportCopies({ ...erasure, drainTimeoutMs: 10_000 });
  assert.deepEqual(counts.consumedRemoved, { in: 1 });
  assert.deepEqual(await bus.ranges('in'), [{ partition: 0, start: 1, end: 1 }]);
});

test('a group that never committed on a topic holds nothing back when the erasure is told to pass it over', async (t) => {
  const bus = new MemoryBus(log, 1, new Metrics());
  t.after(() => bus.close());
  await bus.ensureTopics([{ name: 'in' }, { name: 'in.dlq' }]);
  await bus.publish('in', [{ key: 'k', value: 'alice wrote this' }]);
  const erasure = {
    bus,
    userId: 'alice',
    consumed: [{ topic: 'in', groupIds: ['never-deployed'] }],
    deadLetters: [],
    drainTimeoutMs: 50,
    pollMs: 10,
  };
  await assert.rejects(eraseTransportCopies(erasure), (err: unknown) => err instanceof AppError && err.retriable);
  const counts = await eraseTransportCopies({ ...erasure, skipGroupsWithoutCommits: true });
  assert.deepEqual(counts.consumedRemoved, { in: 1 });
  assert.deepEqual(await bus.ranges('in'), [{ partition: 0, start: 1, end: 1 }]);
});
