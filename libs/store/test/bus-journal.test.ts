import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import type { BusRecord } from '@memstream/bus';
import { PgStore, migrate, storeBusJournal } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

async function openJournal(t: TestContext) {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  return storeBusJournal(store);
}

function rec(
  topic: string,
  partition: number,
  offset: number,
  value: string,
  headers: Record<string, string> = {},
): BusRecord {
  return { topic, partition, offset: String(offset), key: `k${offset}`, value: Buffer.from(value), headers };
}

test('the bus journal gives back what was appended, and an offset appended again holds the later record', async (t) => {
  const journal = await openJournal(t);
  const binary = Buffer.from([0, 255, 92, 34, 123]); // a NUL, a backslash and a quote survive the array encoding
  await journal.append([
    rec('a', 1, 1, 'one', { 'x-correlation-id': 'req-1' }),
    rec('a', 1, 0, 'zero'),
    { ...rec('b', 0, 0, ''), value: binary, key: null },
  ]);
  await journal.append([rec('a', 1, 1, 'one again', { 'x-correlation-id': 'req-2' })]);
  const { records } = await journal.load();
  assert.deepEqual(
    records.map((r) => [r.topic, r.partition, r.offset, r.key, r.value.toString('hex'), r.headers]),
    [
      ['a', 1, '0', 'k0', Buffer.from('zero').toString('hex'), {}],
      ['a', 1, '1', 'k1', Buffer.from('one again').toString('hex'), { 'x-correlation-id': 'req-2' }],
      ['b', 0, '0', null, binary.toString('hex'), {}],
    ],
  );
});

test('the bus journal keeps the last position per group and partition, and trims only below each point', async (t) => {
  const journal = await openJournal(t);
  await journal.append([0, 1, 2, 3].flatMap((o) => [rec('a', 0, o, 'x'), rec('a', 1, o, 'x'), rec('b', 0, o, 'x')]));
  await journal.commit([
    { topic: 'a', groupId: 'g', partition: 0, offset: 1 },
    { topic: 'a', groupId: 'h', partition: 0, offset: 2 },
  ]);
  await journal.commit([{ topic: 'a', groupId: 'g', partition: 0, offset: 3 }]);
  await journal.trim([
    { topic: 'a', partition: 0, offset: 2 },
    { topic: 'b', partition: 0, offset: 1 },
  ]);
  const { records, positions } = await journal.load();
  assert.deepEqual(positions.map((p) => `${p.topic}/${p.groupId}/${p.partition}@${p.offset}`).sort(), [
    'a/g/0@3',
    'a/h/0@2',
  ]);
  assert.deepEqual(
    records.map((r) => `${r.topic}/${r.partition}@${r.offset}`),
    ['a/0@2', 'a/0@3', 'a/1@0', 'a/1@1', 'a/1@2', 'a/1@3', 'b/0@1', 'b/0@2', 'b/0@3'],
  );
});
