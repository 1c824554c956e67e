import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  beginImportScope,
  finishImportScope,
  importRecords,
  migrate,
  recordRequestOutcomes,
  removeMembership,
  requestTransfer,
  setMembership,
  settleTransfer,
  upsertConversationMeta,
  type Queryable,
} from '@memstream/store';
import type { ConversationMeta, ExportDataRecord } from '@memstream/schemas';
import { migratedPglite, migratedPgliteWithout } from '../../../test/helpers/migrated-pglite.js';
import { rowsWithout } from './catalog.js';
import { log } from './search-fixtures.js';

const TABLES = {
  conversation_membership_removals: 'group_id, id',
  conversation_meta: 'group_id',
  conversation_ownership_transfers: 'group_id, id',
  request_outcomes: 'request_id',
} as const;

/** Every row of the four tables, whole, in key order; group_key left out (0035 adds it). */
const rowsOf = (q: Queryable) => rowsWithout(q, TABLES, 'group_key');

async function keysOf(q: Queryable): Promise<Record<string, string>> {
  const { rows } = await q.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE contype IN ('p', 'u') AND conrelid::regclass::text = ANY($1::text[]) ORDER BY conname`,
    [Object.keys(TABLES)],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

const meta = (group: string): ConversationMeta => ({
  scene: 'group_chat',
  scene_desc: {},
  name: `meta of ${group}`,
  description: 'd',
  group_id: group,
  created_at: '2026-01-02T03:04:05.000Z',
  default_timezone: 'UTC',
  user_details: { u1: { full_name: 'U One' } },
});

test('migration 0035 keeps every row of the group-side tables and puts the group in their keys', async () => {
  // the schema the current main leaves: 0034's, then 0037, so 0035 comes after 0037 here
  const store = await migratedPgliteWithout(35);
  try {
    for (const group of ['g1', 'g2']) {
      await setMembership(store, group, 'u1', 'owner');
      await setMembership(store, group, 'u2', 'reader');
      await removeMembership(store, group, 'u2');
      await upsertConversationMeta(store, meta(group), new Date('2026-01-02T03:04:05Z'));
    }
    const offered = await requestTransfer(store, {
      id: 't1',
      groupId: 'g1',
      conversationId: 'g1',
      from: 'u1',
      to: 'u2',
    });
    await settleTransfer(store, offered, 'withdrawn');
    await requestTransfer(store, { id: 't2', groupId: 'g2', conversationId: 'g2', from: 'u1', to: 'u2' });
    // outcomes as the code before 0035 wrote them: a chat's message, a fork's (its conversation
    // names the group's root), a default metadata write that names no group, one of a conversation never stored
    await store.query(
      `INSERT INTO conversations (id, source_api, group_id, group_key) VALUES
         ('chat', 'evermemos', NULL, 'chat'), ('root', 'memory-service', NULL, 'root'), ('fork', 'memory-service', 'root', 'root')`,
    );
    await store.query(
      `INSERT INTO request_outcomes (request_id, kind, status, group_id, message_id, duplicate, result)
       VALUES ('r-chat', 'message', 'stored', 'chat', 'm1', false, '{"sequence": 0}'),
              ('r-fork', 'conversation', 'stored', 'fork', NULL, false, NULL),
              ('r-default', 'conversation_meta', 'stored', NULL, NULL, false, '{}'),
              ('r-gone', 'message', 'failed', 'gone', 'm2', false, NULL)`,
    );
    const before = await rowsOf(store);
    assert.deepEqual(await migrate(store, log), [35]);

    assert.deepEqual(await rowsOf(store), before, 'no row lost or changed');
    assert.deepEqual(await keysOf(store), {
      conversation_membership_removals_pkey: 'PRIMARY KEY (group_id, id)',
      conversation_meta_pkey: 'PRIMARY KEY (group_id)',
      conversation_ownership_transfers_pkey: 'PRIMARY KEY (group_id, id)',
      request_outcomes_pkey: 'PRIMARY KEY (group_key, request_id)',
    });
    const { rows } = await store.query<{ request_id: string; group_key: string }>(
      'SELECT request_id, group_key FROM request_outcomes ORDER BY request_id',
    );
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.request_id, r.group_key])), {
      'r-chat': 'chat',
      'r-default': 'r-default',
      'r-fork': 'root',
      'r-gone': 'gone',
    });

    // the writers' conflict targets are the new keys: a request's second word, kept in the group
    // the converter names (a fork's root), is still dropped
    await recordRequestOutcomes(
      store,
      [
        {
          request_id: 'r-fork',
          kind: 'conversation',
          status: 'failed',
          group_id: 'fork',
          message_id: null,
          duplicate: false,
          result: null,
          error_code: 'CONFLICT',
          error_message: 'again',
        },
      ],
      ['root'],
    );
    assert.deepEqual((await rowsOf(store)).request_outcomes, before.request_outcomes);
    assert.equal(
      (await requestTransfer(store, { id: 't1', groupId: 'g1', conversationId: 'g1', from: 'u1', to: 'u2' })).status,
      'withdrawn',
    );
  } finally {
    await store.close();
  }
});

test('an import skips a transfer or metadata row whose id another group holds, as the keys on id made it', async () => {
  const store = await migratedPglite();
  try {
    await setMembership(store, 'g1', 'u1', 'owner');
    await upsertConversationMeta(store, meta('g1'), new Date('2026-01-02T03:04:05Z'));
    await requestTransfer(store, { id: 't1', groupId: 'g1', conversationId: 'g1', from: 'u1', to: 'u2' });
    const metaId = (await store.query<{ id: string }>(`SELECT id FROM conversation_meta`)).rows[0]!.id;
    const at = '2026-01-02T03:04:05.000000Z';
    const records = [
      {
        kind: 'conversation',
        id: 'moved',
        sourceApi: 'evermemos',
        groupId: null,
        nextSeq: 0,
        title: null,
        metadata: {},
        createdAt: at,
        updatedAt: at,
        deletedAt: null,
      },
      {
        kind: 'conversation_meta',
        groupId: 'moved',
        id: metaId,
        version: '1',
        scene: 'group_chat',
        sceneDesc: {},
        name: 'n',
        description: 'd',
        conversationCreatedAt: at,
        defaultTimezone: 'UTC',
        userDetails: {},
        tags: [],
        createdAt: at,
        updatedAt: at,
      },
      {
        kind: 'ownership_transfer',
        id: 't1',
        groupId: 'moved',
        conversationId: 'moved',
        fromUserId: 'u1',
        toUserId: 'u2',
        status: 'pending',
        createdAt: at,
        decidedAt: null,
      },
    ] as ExportDataRecord[];
    const stored = await store.transaction(async (tx) => {
      const scope = beginImportScope();
      const counts = [];
      for (const r of records) counts.push((await importRecords(tx, scope, r.kind, [r] as never)).stored);
      await finishImportScope(tx, scope);
      return counts;
    });
    assert.deepEqual(stored, [1, 0, 0]);
    const held = await store.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM conversation_meta WHERE id = $1) + (SELECT count(*) FROM conversation_ownership_transfers WHERE id = 't1') AS n`,
      [metaId],
    );
    assert.equal(Number(held.rows[0]!.n), 2, 'each id still names one row');
  } finally {
    await store.close();
  }
});
