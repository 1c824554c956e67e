import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '@memstream/errors';
import { createLogger } from '@memstream/logging';
import {
  MemoryBus,
  type BusJournal,
  type BusRecord,
  type MemoryBusOptions,
  type SubscribeOptions,
} from '@memstream/bus';
import { Metrics } from '@memstream/metrics';
import { uniqueName, waitFor } from '../../../test/helpers/infra.js';
import { pgJournal } from './pg-journal.js';

const log = createLogger({ service: 'test', level: 'silent' });
const fastRetry = { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 };

/** A journal of the test's own, and a way to open buses on it that are closed before it goes. */
async function journalFixture(t: TestContext) {
  const buses: MemoryBus[] = [];
  t.after(() => Promise.all(buses.map((b) => b.close())));
  const { journal, store } = await pgJournal(t);
  const open = async (topic: string, options: MemoryBusOptions = {}) => {
    const bus = new MemoryBus(log, 2, new Metrics(), { journal, commitIntervalMs: 20, trimIntervalMs: 20, ...options });
    buses.push(bus);
    await bus.ensureTopics([{ name: topic }, { name: `${topic}.dlq` }]);
    return bus;
  };
  return { journal, store, open };
}

function subscription(topic: string, groupId: string, handler: SubscribeOptions['handler']): SubscribeOptions {
  return { groupId, topic, dlqTopic: `${topic}.dlq`, retry: fastRetry, handler };
}

const record = (key: string, n: number) => ({ key, value: JSON.stringify({ n }) });
const numberOf = (r: BusRecord) => (JSON.parse(r.value.toString()) as { n: number }).n;

/** The group's position on the partition as the journal holds it (what survives a crash). */
async function durablePosition(
  journal: BusJournal,
  topic: string,
  groupId: string,
  partition: number,
): Promise<number | undefined> {
  const { positions } = await journal.load();
  return positions.find((p) => p.topic === topic && p.groupId === groupId && p.partition === partition)?.offset;
}

async function journaledOffsets(journal: BusJournal, topic: string): Promise<number[]> {
  return (await journal.load()).records.filter((r) => r.topic === topic).map((r) => Number(r.offset));
}

test('after a crash, a new bus on the journal redelivers what the group had not committed, resumes right after its position and continues the offsets', async (t) => {
  const { journal, open } = await journalFixture(t);
  const topic = uniqueName('crash');
  const group = uniqueName('g');
  // No trimming on the first bus: records 0-2 stay, so only the group's position keeps them from coming back.
  const first = await open(topic, { trimIntervalMs: 3_600_000 });
  await first.publish(
    topic,
    Array.from({ length: 6 }, (_, n) => record('k', n)),
  );
  const seenBefore: number[] = [];
  let partition = -1;
  await first.subscribe(
    subscription(topic, group, async (r, ctx) => {
      seenBefore.push(numberOf(r));
      partition = r.partition;
      // The process dies while record 3 is in hand: it never finishes.
      if (numberOf(r) === 3) {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'stopped mid-record');
      }
    }),
  );
  await waitFor(
    'records 0-2 committed to the journal',
    async () => (await durablePosition(journal, topic, group, partition)) === 3,
  );
  assert.deepEqual(seenBefore, [0, 1, 2, 3]);

  // The first bus is dropped without close, as a SIGKILL would leave it: stuck, nothing more written.
  const second = await open(topic);
  const seenAfter: Array<[number, string]> = [];
  await second.subscribe(subscription(topic, group, async (r) => void seenAfter.push([numberOf(r), r.offset])));
  await second.publish(topic, [record('k', 6)]);
  await waitFor('record 6 on the new bus', async () => seenAfter.some(([n]) => n === 6));
  assert.deepEqual(seenAfter, [
    [3, '3'],
    [4, '4'],
    [5, '5'],
    [6, '6'],
  ]);
});

test('a partition whose records were all trimmed continues after the committed position, not at 0', async (t) => {
  const { journal, open } = await journalFixture(t);
  const topic = uniqueName('trimmed');
  const group = uniqueName('g');
  const first = await open(topic);
  const seen: Array<[number, string]> = [];
  await first.subscribe(subscription(topic, group, async (r) => void seen.push([numberOf(r), r.offset])));
  await first.publish(
    topic,
    [0, 1, 2].map((n) => record('k', n)),
  );
  await waitFor(
    'every record handled and trimmed from the journal',
    async () => seen.length === 3 && (await journaledOffsets(journal, topic)).length === 0,
  );
  await first.close();

  const second = await open(topic);
  await second.subscribe(subscription(topic, group, async (r) => void seen.push([numberOf(r), r.offset])));
  await second.publish(topic, [record('k', 3)]);
  await waitFor('the record published after the restart', async () => seen.length === 4);
  assert.deepEqual(seen[3], [3, '3']);
});

test('a failed append rejects every publish of its turn, delivers none of it, and the next append takes its offsets', async (t) => {
  const { journal, store, open } = await journalFixture(t);
  const topic = uniqueName('fail');
  // A real failure of the statement: the server refuses one of the rows, so the append fails whole.
  await store.exec(`ALTER TABLE bus_journal ADD CONSTRAINT refuse_poison CHECK (key <> 'poison')`);
  const bus = await open(topic);
  const seen: Array<[number, string]> = [];
  await bus.subscribe(subscription(topic, uniqueName('g'), async (r) => void seen.push([numberOf(r), r.offset])));
  await bus.publish(topic, [record('k', 0)]);
  const sameTurn = await Promise.allSettled([
    bus.publish(topic, [record('k', 1)]),
    bus.publish(topic, [record('poison', 2)]),
  ]);
  assert.deepEqual(
    sameTurn.map((s) => s.status),
    ['rejected', 'rejected'],
  );
  await bus.publish(topic, [record('k', 3)]);
  // Records of one key are delivered in order: seeing 3 means 1 will never come.
  await waitFor('the record published after the failure', async () => seen.some(([n]) => n === 3));
  assert.deepEqual(seen, [
    [0, '0'],
    [3, '1'],
  ]);
  // Nothing of the failed turn is in the journal (what was handled may already be trimmed from it).
  const values = (await journal.load()).records.filter((r) => r.topic === topic).map(numberOf);
  assert.deepEqual(
    values.filter((n) => n === 1 || n === 2),
    [],
  );
});

test('records published in one turn are appended in one statement, and each publish resolves with its records in the journal', async (t) => {
  const { store, open } = await journalFixture(t);
  const topic = uniqueName('group-commit');
  const bus = await open(topic);
  await Promise.all(Array.from({ length: 20 }, (_, n) => bus.publish(topic, [record(`key-${n}`, n)])));
  // Rows written by one statement share its transaction id.
  const { rows } = await store.query<{ rows: number; transactions: number }>(
    'SELECT count(*)::int AS rows, count(DISTINCT xmin::text)::int AS transactions FROM bus_journal WHERE topic = $1',
    [topic],
  );
  assert.deepEqual(rows[0], { rows: 20, transactions: 1 });
});

test('the journal keeps only what the slowest group has not passed, and empties once every group caught up', async (t) => {
  const { journal, open } = await journalFixture(t);
  const topic = uniqueName('bounded');
  const bus = await open(topic);
  let fast = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await bus.subscribe(subscription(topic, uniqueName('fast'), async () => void fast++));
  await bus.subscribe(
    subscription(topic, uniqueName('slow'), async (r) => {
      if (numberOf(r) === 100) await released;
    }),
  );
  for (let n = 0; n < 300; n += 50)
    await bus.publish(
      topic,
      Array.from({ length: 50 }, (_, i) => record('k', n + i)),
    );
  await waitFor('the fast group done and the journal trimmed to the slow group', async () => {
    const offsets = await journaledOffsets(journal, topic);
    return fast === 300 && offsets.length === 200 && offsets[0] === 100;
  });
  release();
  await waitFor(
    'the journal empty once both groups passed every record',
    async () => (await journaledOffsets(journal, topic)).length === 0,
  );
});
