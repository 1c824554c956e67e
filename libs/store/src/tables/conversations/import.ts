import { AppError } from '@memstream/errors';
import type { Queryable } from '../../store.js';
import {
  idsFound,
  inConversation,
  inserted,
  insertedCreating,
  insertSql,
  rows,
  refuseIdsTakenElsewhere,
} from '../../participant/import-rows.js';
import type { ImportContext, ImportCreated, ImportRecord, TableImport } from '../../participant/table-import.js';
import { insertSearchRowsSql } from '../search/search-rows.js';
import { queueUnembeddedSql } from '../search/search-sql.js';
import { keywordVectorSql, messageSearchText } from '../search/search-text.js';
import { withGroups } from './conversation-sql.js';

/** A conversation's group: the one it forks, or its own id. */
const GROUP = 'COALESCE(r."groupId", r.id)';

/**
 * Creates a conversation only under an id nothing is stored under, in a group that is new as well
 * (made earlier in this import, or unknown to the server): one added to somebody's group would be
 * read by that group's members, and would read what they hold. The import's scope notes what it
 * made; $2 is the groups made so far.
 */
const CONVERSATIONS = insertSql(
  'conversations',
  `id text, source_api text, group_id text, next_seq bigint, title text, metadata jsonb, created_at timestamptz,
   updated_at timestamptz, deleted_at timestamptz`,
  'id',
  {
    values: { group_key: GROUP },
    extra: '"idInUse" boolean, "groupInUse" boolean',
    where: `NOT r."idInUse" AND (${GROUP} = ANY($2::text[]) OR NOT r."groupInUse")`,
    returning: 'group_key',
    created: 'group_key',
  },
);

// A fork is set on its conversation's row once: a row that is a fork already is left as it is.
const FORK = `WITH upd AS (
   UPDATE conversations c SET forked_at_conversation_id = r."forkedAtConversationId",
          forked_at_message_id = r."forkedAtMessageId", fork_source_conversation_id = r."sourceConversationId",
          fork_source_seq = r."sourceSeq"
   FROM ${rows(`"conversationId" text, "forkedAtConversationId" text, "forkedAtMessageId" text,
                "sourceConversationId" text, "sourceSeq" bigint`)}
   WHERE c.id = r."conversationId" AND c.forked_at_conversation_id IS NULL AND c.fork_source_conversation_id IS NULL
   RETURNING c.id)
 SELECT id AS owner, count(*)::int AS n FROM upd GROUP BY id`;

// A message's search row (its keyword side) is written with it, as the converter writes them.
const MESSAGES = insertSql(
  'messages',
  `id bigint, conversation_id text, seq bigint, message_id text, sender_id text, sender_name text, role text,
   content text, created_at timestamptz, stored_at timestamptz, refer_list jsonb, metadata jsonb, source_api text`,
  'conversation_id',
  {
    // the conversation is known to be stored (refuseUnknownConversations), its group read (withGroups)
    values: { group_key: 'r."groupKey"' },
    extra: '"searchText" text, "groupKey" text',
    returning: 'id, conversation_id, message_id, sender_id, created_at, audience, group_key',
    after: `${insertSearchRowsSql(
      'searchable',
      'message',
      `SELECT i.group_key, 'message', i.id::text, i.conversation_id, i.sender_id, n."searchText", i.created_at,
              ARRAY[i.message_id], ${keywordVectorSql('n."searchText"')}, i.audience
       FROM ins i JOIN input n ON n.id = i.id
       WHERE n."searchText" <> ''`,
    )},
     ${queueUnembeddedSql('searchable')}`,
  },
);

/**
 * Refuses messages of a conversation that is not stored (by this import or before it). No foreign
 * key ties a message to its conversation since migration 0027 (the append upserts the conversation
 * it numbers from), so what the key checked is checked here, and the conversations are held as
 * the key held them (FOR KEY SHARE, to the end of the import's transaction): a purge cannot take
 * one from under its messages. Citus locks one shard's rows a statement, so the lock goes a
 * statement per group, the group read first (it never changes).
 */
export async function refuseUnknownConversations(q: Queryable, records: ReadonlyArray<{ conversationId: string }>) {
  const wanted = [...new Set(records.map((r) => r.conversationId))];
  const { rows: found } = await q.query<{ id: string; group_key: string }>(
    'SELECT id, group_key FROM conversations WHERE id = ANY($1::text[])',
    [wanted],
  );
  const byGroup = new Map<string, string[]>();
  for (const r of found) byGroup.set(r.group_key, [...(byGroup.get(r.group_key) ?? []), r.id]);
  const held = new Set<string>();
  for (const [group, ids] of byGroup) {
    const locked = await q.query<{ id: string }>(
      'SELECT id FROM conversations WHERE group_key = $1 AND id = ANY($2::text[]) FOR KEY SHARE',
      [group, ids],
    );
    for (const r of locked.rows) held.add(r.id);
  }
  if (wanted.some((id) => !held.has(id)))
    throw new AppError(
      'INVALID_PARAMETER',
      'a message record names a conversation not stored before it (a record must follow what it refers to)',
    );
}

/** Of `groups`, those holding anything: a conversation of the group (its root or a fork), or what any table holds under the id. */
async function groupsInUse(q: Queryable, scope: ImportContext, groups: readonly string[]): Promise<Set<string>> {
  const used = await scope.inUse(q, groups);
  if (groups.length === 0) return used;
  const sql = 'SELECT DISTINCT group_id AS id FROM conversations WHERE group_id = ANY($1::text[])';
  for (const id of await idsFound(q, sql, groups)) used.add(id);
  return used;
}

/**
 * Refuses a fork of a conversation the import did not create (a fork shows its members its
 * ancestors' messages; an export is in id order, so the fork may come before what it names), then
 * moves each created conversation's `next_seq` past its highest message (the file's numbers are
 * not the counter's). Both join the created conversations by their whole key, group then id.
 */
async function finishConversations(q: Queryable, { ids, groups }: ImportCreated): Promise<void> {
  const { rows: forks } = await q.query<{ id: string; named: string }>(
    `SELECT c.id, COALESCE(CASE WHEN c.forked_at_conversation_id <> ALL($1::text[]) THEN c.forked_at_conversation_id END,
                           CASE WHEN c.fork_source_conversation_id <> ALL($1::text[]) THEN c.fork_source_conversation_id END) AS named
       FROM conversations c
      WHERE c.group_key = ANY($2::text[]) AND c.id = ANY($1::text[])
        AND (c.forked_at_conversation_id <> ALL($1::text[]) OR c.fork_source_conversation_id <> ALL($1::text[]))
      ORDER BY c.id LIMIT 1`,
    [ids, groups],
  );
  if (forks[0])
    throw new AppError(
      'INVALID_PARAMETER',
      `conversation ${forks[0].id} is a fork of ${forks[0].named}, which this import does not create: an import forks only its own conversations`,
      { details: { id: forks[0].id } },
    );
  await q.query(
    `UPDATE conversations c SET next_seq = t.top + 1
     FROM (SELECT m.group_key, m.conversation_id, max(m.seq) AS top FROM messages m
            WHERE m.group_key = ANY($2::text[]) AND m.conversation_id = ANY($1::text[])
            GROUP BY m.group_key, m.conversation_id) t
     WHERE c.group_key = t.group_key AND c.id = t.conversation_id AND c.next_seq <= t.top`,
    [ids, groups],
  );
}

// A fork names messages of its ancestors: finishConversations holds it to the import's own conversations.
const forkImport: TableImport<'fork'> = {
  kind: 'fork',
  needs: inConversation,
  write: (q, records) => inserted(q, FORK, records),
};

export const conversationImport: TableImport<'conversation'> = {
  kind: 'conversation',
  creates: (r) => r.id,
  // of the ids, those of a stored conversation
  holds: (q, ids) => idsFound(q, 'SELECT id FROM conversations WHERE id = ANY($1::text[])', ids),
  write: async (q, records, scope) => {
    const groupOf = (r: ImportRecord<'conversation'>) => r.groupId ?? r.id;
    const ids = await scope.inUse(
      q,
      records.map((r) => r.id),
    );
    const groups = await groupsInUse(q, scope, records.map(groupOf));
    const marked = records.map((r) => ({ ...r, idInUse: ids.has(r.id), groupInUse: groups.has(groupOf(r)) }));
    return insertedCreating(q, CONVERSATIONS, marked, scope, scope.groups());
  },
  finish: finishConversations,
  carried: [forkImport],
};

export const messageImport: TableImport<'message'> = {
  kind: 'message',
  needs: inConversation,
  checkEvery: refuseUnknownConversations,
  check: (q, records) =>
    refuseIdsTakenElsewhere(q, records, {
      what: 'message',
      table: 'messages',
      columns: `id bigint, "conversationId" text, seq bigint`,
      sameRow: `x.conversation_id = r."conversationId" AND x.seq = r.seq`,
    }),
  write: async (q, records) =>
    inserted(
      q,
      MESSAGES,
      (await withGroups(q, records)).map((r) => ({
        ...r,
        searchText: messageSearchText({ ...r, sender_name: r.senderName, sender_id: r.senderId }),
      })),
    ),
  numbered: 'id',
};
