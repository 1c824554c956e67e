import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  advanceSequences,
  appendMessage,
  beginImportScope,
  finishImportScope,
  importRecords,
  loadMigrations,
  migrate,
  setMembership,
  type Store,
} from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import type { ExportDataRecord } from '@memstream/schemas';
import { appendBefore0039 } from './search-before-0039.js';
import { backends, chatMessage, log } from './search-fixtures.js';

const AT = '2025-01-01T10:00:00.000000Z';

const conversation = (id: string, nextSeq = 1) =>
  ({
    kind: 'conversation',
    id,
    sourceApi: 'evermemos',
    groupId: null,
    nextSeq,
    title: null,
    metadata: {},
    createdAt: AT,
    updatedAt: AT,
    deletedAt: null,
  }) as ExportDataRecord;
const membership = (groupId: string, userId: string) =>
  ({ kind: 'membership', groupId, userId, accessLevel: 'manager', createdAt: AT }) as ExportDataRecord;
const message = (conversationId: string, seq: number, id: number) =>
  ({
    kind: 'message',
    conversationId,
    seq,
    id,
    messageId: `imported-${seq}`,
    senderId: 'ann',
    senderName: 'Ann',
    role: 'user',
    content: 'imported words',
    createdAt: AT,
    storedAt: AT,
    referList: [],
    metadata: {},
    sourceApi: 'evermemos',
  }) as ExportDataRecord;

/** Runs the records through the store as importStream does, a kind at a time, in one transaction. */
async function importAll(store: Store, records: ExportDataRecord[]) {
  return store.transaction(async (tx) => {
    const scope = beginImportScope();
    const outcomes = [];
    for (const r of records) outcomes.push(await importRecords(tx, scope, r.kind, [r] as never));
    await advanceSequences(tx);
    return { outcomes, touched: await finishImportScope(tx, scope) };
  });
}

const seqs = async (store: Store, id: string) =>
  (
    await store.query<{ seq: string }>('SELECT seq FROM messages WHERE conversation_id = $1 ORDER BY seq', [id])
  ).rows.map((r) => Number(r.seq));

// On both stores: the import's note of what it creates is a temporary table, its probes savepoints.
for (const [name, open] of backends) {
  test(`${name}: an import stores nothing into a conversation the server holds, and names what it created and granted`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    await appendMessage(store, chatMessage('alice-group', 'a1', 'alice writes first'));
    await setMembership(store, 'alice-group', 'alice', 'owner');

    const { outcomes, touched } = await importAll(store, [
      conversation('alice-group'),
      membership('alice-group', 'root'),
      message('alice-group', 50, 9_000),
      conversation('moved', 0),
      membership('moved', 'ann'),
      message('moved', 7, 9_001),
    ]);
    assert.deepEqual(
      outcomes.map((o) => [o.stored, o.present, Object.fromEntries(o.refused)]),
      [
        [0, 1, {}], // alice's conversation record: hers, left as it is
        [0, 0, { 'alice-group': 1 }],
        [0, 0, { 'alice-group': 1 }],
        [1, 0, {}],
        [1, 0, {}],
        [1, 0, {}],
      ],
    );
    const members = await store.query<{ user_id: string }>(
      `SELECT user_id FROM conversation_memberships WHERE group_id = 'alice-group'`,
    );
    assert.deepEqual(
      members.rows.map((r) => r.user_id),
      ['alice'],
    );
    assert.deepEqual(await seqs(store, 'alice-group'), [0]);
    assert.deepEqual(touched, {
      conversations: ['moved'],
      memberships: [{ groupId: 'moved', userId: 'ann', accessLevel: 'manager' }],
    });
    // the imported conversation numbers on past the message the file gave it (its record said 0)
    await appendMessage(store, chatMessage('moved', 'after', 'written after the import'));
    assert.deepEqual(await seqs(store, 'moved'), [7, 8]);

    // The same file again: what is there is present, alice's group still refused, nothing created.
    const again = await importAll(store, [
      conversation('moved', 0),
      membership('moved', 'ann'),
      message('moved', 7, 9_001),
    ]);
    assert.deepEqual(
      again.outcomes.map((o) => [o.stored, o.present, o.refused.size]),
      [
        [0, 1, 0],
        [0, 1, 0],
        [0, 1, 0],
      ],
    );
    assert.deepEqual(again.touched, { conversations: [], memberships: [] });

    // A new conversation's message under a number another message holds: the import is refused
    // whole (the same message again, above, was present, not refused).
    await assert.rejects(
      importAll(store, [conversation('elsewhere', 0), message('elsewhere', 0, 9_001)]),
      /message id 9001 is already another message on this server/,
    );
    assert.deepEqual(await seqs(store, 'elsewhere'), []);
  });
}

// Imports before issue 49 stored messages without moving next_seq: the first write to reach a
// number taken failed on the key from then on. Imports now move it; migration 0031 repairs what
// the old ones left, once, instead of a probe of the highest seq on every append.
test('migration 0031 moves next_seq past every stored seq, so later writes number on', async () => {
  const store = await migratedPglite({ before: 31 });
  try {
    // the writers before 0039 write group_key and name its keys (0035-0038): those go ahead of the
    // one under test; today's search writers need 0039, which comes later
    await migrate(
      store,
      log,
      (await loadMigrations()).filter((m) => m.version >= 35 && m.version <= 38),
    );
    await appendBefore0039(store, [chatMessage('g', 'm0', 'first')]);
    // a message numbered inside the conversation's sequence, as imports stored them before
    await store.query(
      `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, stored_at,
                             refer_list, metadata, source_api, group_key)
       VALUES ('g', 3, 'planted', 'x', 'X', 'user', 'planted', now(), now(), '[]', '{}', 'evermemos', 'g')`,
    );
    await migrate(store, log, await loadMigrations());
    for (let i = 1; i <= 5; i++) await appendMessage(store, chatMessage('g', `m${i}`, `write ${i}`));
    assert.deepEqual(await seqs(store, 'g'), [0, 3, 4, 5, 6, 7, 8]);
  } finally {
    await store.close();
  }
});
