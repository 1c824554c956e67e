import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import type { ExportDataRecord } from '@memstream/schemas';
import { erasureSteps, runErasureJob } from '@memstream/governance';
import { PARTICIPANTS, createErasureJob, exportRecords, type Store } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';
import { PERSON, writeWorld } from './symmetry-world.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** Each export kind's table, and its key as the table's columns and as the record's fields. */
const KINDS: Record<string, { table: string; columns: string[]; fields: string[] }> = {
  conversation: { table: 'conversations', columns: ['id'], fields: ['id'] },
  ark_session: { table: 'ark_sessions', columns: ['session_id'], fields: ['sessionId'] },
  conversation_meta: { table: 'conversation_meta', columns: ['group_id'], fields: ['groupId'] },
  membership: { table: 'conversation_memberships', columns: ['group_id', 'user_id'], fields: ['groupId', 'userId'] },
  membership_removal: { table: 'conversation_membership_removals', columns: ['id'], fields: ['id'] },
  ownership_transfer: { table: 'conversation_ownership_transfers', columns: ['id'], fields: ['id'] },
  message: { table: 'messages', columns: ['conversation_id', 'seq'], fields: ['conversationId', 'seq'] },
  episode: { table: 'episodes', columns: ['id'], fields: ['id'] },
  episodic_memory: { table: 'episodic_memories', columns: ['id'], fields: ['id'] },
  summary: { table: 'memory', columns: ['memory_id'], fields: ['id'] },
  kaos_session: { table: 'kaos_sessions', columns: ['agent', 'session_id'], fields: ['agent', 'sessionId'] },
  kaos_event: { table: 'kaos_events', columns: ['conversation_id', 'seq'], fields: ['conversationId', 'seq'] },
  ark_chunk: { table: 'stream_chunks', columns: ['session_id', 'chunk_seq'], fields: ['sessionId', 'seq'] },
};
const keyOf = (row: Record<string, unknown>, names: string[]) => JSON.stringify(names.map((n) => String(row[n])));

async function storeFor(t: TestContext): Promise<Store> {
  return migratedStore(t);
}

/** Every row of every table, as its text, per table. */
async function snapshot(store: Store): Promise<Map<string, Map<string, Record<string, unknown>>>> {
  const { rows: tables } = await store.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const all = new Map<string, Map<string, Record<string, unknown>>>();
  for (const { name } of tables) {
    const { rows } = await store.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(x) AS row FROM "${name}" x`);
    all.set(name, new Map(rows.map((r) => [JSON.stringify(r.row), r.row])));
  }
  return all;
}

/** Per table, the rows the erasure of the person removed or rewrote (as they were before). */
async function erasureChanges(store: Store): Promise<Map<string, Record<string, unknown>[]>> {
  const before = await snapshot(store);
  const job = await createErasureJob(store, {
    userId: PERSON,
    requestedBy: 'user:root',
    self: false,
    firstStep: 'owned-conversations',
  });
  const discard = async () => undefined;
  const ended = await runErasureJob(
    { store, owner: 'worker', leaseMs: 30_000, batchSize: 2, maxAttempts: 1, discard, log },
    job.id,
    erasureSteps({ discard }),
  );
  assert.equal(ended?.status, 'completed', `the erasure completed: ${ended?.error}`);
  const after = await snapshot(store);
  const changed = new Map<string, Record<string, unknown>[]>();
  for (const [table, rows] of before)
    changed.set(
      table,
      [...rows].filter(([text]) => !after.get(table)?.has(text)).map(([, row]) => row),
    );
  return changed;
}

test("a person's export holds exactly the rows erasing them removes or de-identifies, table by table", async (t) => {
  const store = await storeFor(t);
  await writeWorld(store);
  const exported: ExportDataRecord[] = [];
  for await (const batch of exportRecords(store, { kind: 'person', userId: PERSON, asPerson: false }, 3))
    exported.push(...batch);
  const own: ExportDataRecord[] = [];
  for await (const batch of exportRecords(store, { kind: 'person', userId: PERSON, asPerson: true }))
    own.push(...batch);
  const changed = await erasureChanges(store);

  // What the erasure drops because it was made from the person's words among others' (an episode
  // extracted again, a summary made anew): not theirs, so not in their export. Only in the
  // conversations where the export holds a message they sent.
  const sentIn = new Set(
    exported.filter((r) => r.kind === 'message' && r.senderId === PERSON).map((r) => r['conversationId' as never]),
  );
  const madeFromTheirWords = (table: string, row: Record<string, unknown>) =>
    sentIn.has(row['conversation_id'] as never) &&
    (table === 'episodes' ||
      (table === 'episodic_memories' && row['user_id'] !== PERSON) ||
      table === 'memory' ||
      (table === 'messages' && row['sender_id'] !== PERSON && JSON.stringify(row['metadata']).includes('"summary"')));

  const problems: string[] = [];
  for (const [kind, { table, columns, fields }] of Object.entries(KINDS)) {
    const records = exported.filter((r) => r.kind === kind) as unknown as Record<string, unknown>[];
    const exportedKeys = new Set(records.map((r) => keyOf(r, fields)));
    const rows = changed.get(table) ?? [];
    const changedKeys = new Set(rows.map((r) => keyOf(r, columns)));
    for (const row of rows)
      if (!exportedKeys.has(keyOf(row, columns)) && !madeFromTheirWords(table, row))
        problems.push(`${table} ${keyOf(row, columns)}: erased, not exported`);
    for (const record of records) {
      if (changedKeys.has(keyOf(record, fields))) continue;
      if (!neededBy(record, exported, changed))
        problems.push(`${table} ${keyOf(record, fields)}: exported, not erased`);
    }
  }
  assert.deepEqual(problems, [], 'the export and the erasure agree on every row');
  const tables = new Set(PARTICIPANTS.map((p) => p.table));
  const unknown = [...changed.keys()].filter((table) => !tables.has(table));
  assert.deepEqual(unknown, [], 'every table says what exporting and erasing a person do with it');

  // Their own export is the same less what they may not read; their turn in bob's group is in it.
  const recordKey = (r: ExportDataRecord) =>
    `${r.kind} ${keyOf(r as never, KINDS[r.kind]?.fields ?? ['conversationId'])}`;
  const all = new Set(exported.map(recordKey));
  assert.deepEqual(
    own.map(recordKey).filter((k) => !all.has(k)),
    [],
    "their own export is within an administrator's",
  );
  assert.ok(
    own.some((r) => r.kind === 'message' && r.conversationId === 'ev-bob' && r.senderId === PERSON),
    "their turn in bob's group, which they are not in, is in their own export",
  );
});

/**
 * An exported row the erasure leaves is only a reference another exported row needs on import:
 * the conversation a row of the person's sits in (named, not described), an episode a memory of
 * theirs came from, the KAOS session their turn was in.
 */
function neededBy(
  record: Record<string, unknown>,
  exported: ExportDataRecord[],
  changed: Map<string, Record<string, unknown>[]>,
) {
  const others = exported as unknown as Record<string, unknown>[];
  if (record['kind'] === 'conversation')
    return (
      record['title'] === null &&
      JSON.stringify(record['metadata']) === '{}' &&
      others.some(
        (r) =>
          r !== record &&
          (r['conversationId'] === record['id'] || r['groupId'] === (record['groupId'] ?? record['id'])),
      )
    );
  if (record['kind'] === 'episode')
    return (changed.get('episodic_memories') ?? []).some(
      (m) => m['episode_id'] === record['id'] && m['user_id'] === PERSON,
    );
  if (record['kind'] === 'kaos_session')
    return (changed.get('kaos_events') ?? []).some((e) => e['conversation_id'] === record['conversationId']);
  return false;
}
