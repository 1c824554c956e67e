import { AppError } from '@memstream/errors';
import type { Queryable } from '../store.js';
import { ID_TAKEN, insertSql, textArray } from '../participant/import-rows.js';
import { keywordVectorSql } from '../tables/search/search-text.js';
import { insertSearchRowsSql } from '../tables/search/search-rows.js';

/**
 * Queues the search rows an import wrote (`searchable`) for the indexer's sweep: no event will
 * bring their vectors (the import goes straight to the store). See unembeddedItems.
 */
const UNEMBEDDED =
  'unembedded AS (INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, kind, item_id FROM searchable)';

/**
 * Refuses messages whose conversation is not stored (earlier in the import, or before it). Messages
 * have no foreign key to their conversation (migration 0027: the append statement upserts the
 * conversation it numbers from); an import inserts rows as they come, so it checks here what the
 * key checked, and holds the conversations as the key did (FOR KEY SHARE, until the import's
 * transaction ends) so that a purge cannot remove one under the messages being imported. The
 * lock names each conversation's group (the shard column), a statement per group, as Citus locks
 * rows of one shard at a time; a conversation's group never changes, so it is read first.
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

const GROUP = 'COALESCE(r."groupId", r.id)';

/**
 * A conversation is created only when nothing is stored under its id, and its group is new too
 * (created earlier in this import, or unknown here): a new conversation in someone's group would
 * be read by its members, and read what they hold. What it creates is noted (see import-scope):
 * $2 holds the groups created so far.
 */
export const CONVERSATIONS = insertSql(
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

export const CONVERSATION_META = insertSql(
  'conversation_meta',
  `group_id text, id text, version text, scene text, scene_desc jsonb, name text, description text,
   conversation_created_at timestamptz, default_timezone text, user_details jsonb, tags jsonb, created_at timestamptz,
   updated_at timestamptz`,
  'group_id',
  ID_TAKEN,
);

// written with their inverse rows, person_groups, by the module that owns both
export { IMPORT_MEMBERSHIPS as MEMBERSHIPS } from '../tables/memberships/membership-rows.js';

export const MEMBERSHIP_REMOVALS = insertSql(
  'conversation_membership_removals',
  'id bigint, group_id text, user_id text, access_level text, created_at timestamptz, removed_at timestamptz',
  'group_id',
);

export const OWNERSHIP_TRANSFERS = insertSql(
  'conversation_ownership_transfers',
  `id text, group_id text, conversation_id text, from_user_id text, to_user_id text, status text,
   created_at timestamptz, decided_at timestamptz`,
  'conversation_id',
  ID_TAKEN,
);

// The keyword side of each search row comes with the message, as the converter writes it.
export const MESSAGES = insertSql(
  'messages',
  `id bigint, conversation_id text, seq bigint, message_id text, sender_id text, sender_name text, role text,
   content text, created_at timestamptz, stored_at timestamptz, refer_list jsonb, metadata jsonb, source_api text`,
  'conversation_id',
  {
    // refuseUnknownConversations ran first: the conversation is stored, its group read (withGroups)
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
     ${UNEMBEDDED}`,
  },
);

/**
 * The group of the record's conversation, read first (withGroups): Citus plans no lookup
 * correlated with the batch's rows beside its CTE. One not stored is its own group, as migration
 * 0036 has it: the insert then fails on the conversation's foreign key, as before, or (an
 * episodic memory, keyed to its episode only) is stored as before.
 */
const CONVERSATION_GROUP = 'r."groupKey"';

export const EPISODES = insertSql(
  'episodes',
  `id bigint, conversation_id text, start_seq bigint, end_seq bigint, message_ids jsonb, start_time timestamptz,
   end_time timestamptz, close_reason text, status text, version int, created_at timestamptz, updated_at timestamptz`,
  'conversation_id',
  { select: { message_ids: textArray }, values: { group_key: CONVERSATION_GROUP }, extra: '"groupKey" text' },
);

export const EPISODIC_MEMORIES = insertSql(
  'episodic_memories',
  `id text, episode_id bigint, conversation_id text, version int, user_id text, title text, content text,
   occurred_at timestamptz, ended_at timestamptz, message_ids jsonb, participants jsonb, extractor text,
   superseded_at timestamptz, created_at timestamptz`,
  'conversation_id',
  {
    select: { message_ids: textArray, participants: textArray },
    values: { group_key: CONVERSATION_GROUP },
    where: ID_TAKEN.where,
    extra: `"searchText" text, "groupKey" text, ${ID_TAKEN.extra}`,
    returning: 'id, conversation_id, user_id, occurred_at, message_ids, superseded_at, group_key',
    after: `${insertSearchRowsSql(
      'searchable',
      'episodic_memory',
      `SELECT i.group_key, 'episodic_memory', i.id, i.conversation_id, i.user_id, n."searchText", i.occurred_at,
              i.message_ids, ${keywordVectorSql('n."searchText"')}, NULL
       FROM ins i JOIN input n ON n.id = i.id
       WHERE i.superseded_at IS NULL`,
    )},
     ${UNEMBEDDED}`,
  },
);

// A summary built on one the export left out (it was not finished), or on one of another group
// (its key to it could not stay within the shard), stands on its own: `baseKept`, read first
// (withBasesKept), says whether its base is stored in its group or comes in the same batch.
export const SUMMARIES = insertSql(
  'memory',
  `memory_id bigint, conversation_id text, memory_text text, start_sequence int, end_sequence int,
   base_memory_id bigint, created_at timestamptz, updated_at timestamptz, generation_time_ms int`,
  'conversation_id',
  {
    fields: { memory_id: 'id', memory_text: 'text', base_memory_id: 'baseId' },
    select: { base_memory_id: (base) => `CASE WHEN r."baseKept" THEN ${base} END` },
    values: { status: `'completed'`, group_key: CONVERSATION_GROUP },
    extra: '"groupKey" text, "baseKept" boolean',
    order: 'r."id"',
  },
);

/**
 * A session with its name (kaos_session_names), stored only where the name was free or already
 * its own: a name another session holds was refused before (refuseTakenIds, as a "KAOS
 * session"), and of two records naming one session in a batch only the first conversation is
 * stored.
 */
export const KAOS_SESSIONS = insertSql(
  'kaos_sessions',
  `agent text, session_id text, conversation_id text, app_name text, user_id text, ord bigint, next_event bigint,
   created_at timestamptz, updated_at timestamptz`,
  'conversation_id',
  {
    where: `r."conversationId" IN (SELECT conversation_id FROM named)`,
    before: `named AS (
       INSERT INTO kaos_session_names (agent, session_id, conversation_id)
       SELECT DISTINCT ON (r.agent, r."sessionId") r.agent, r."sessionId", r."conversationId" FROM input r
       ORDER BY r.agent, r."sessionId", r."conversationId"
       ON CONFLICT DO NOTHING RETURNING conversation_id)`,
  },
);

export const KAOS_EVENTS = insertSql(
  'kaos_events',
  'conversation_id text, seq bigint, event_id text, occurred_at timestamptz, event_type text, content text, metadata text',
  'conversation_id',
  { select: { content: (f) => `${f}::json`, metadata: (f) => `${f}::json` } },
);

/**
 * An ARK session of a conversation this import created ($2: the ids created so far), or a stream
 * alone under an id nothing uses (noted as created, its own group).
 */
export const ARK_SESSIONS = insertSql(
  'ark_sessions',
  'session_id text, created_at timestamptz, completed_at timestamptz',
  'session_id',
  {
    extra: '"idInUse" boolean',
    where: `(r."sessionId" = ANY($2::text[]) OR NOT r."idInUse")`,
    created: 'import_owner',
  },
);

export const ARK_CHUNKS = insertSql(
  'stream_chunks',
  'session_id text, chunk_seq bigint, chunk jsonb, created_at timestamptz',
  'session_id',
  {
    fields: { chunk_seq: 'seq' },
  },
);
