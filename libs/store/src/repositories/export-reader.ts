import type { ExportDataRecord } from '@memstream/schemas';
import type { Queryable } from '../store.js';

/**
 * What an export holds. The server: everything. A person: the conversations they own (their
 * memberships as owner, their private chats, the KAOS sessions of their user id) whole, and in the
 * conversations they are only a member of, the conversation, their membership and the messages they
 * wrote. `asPerson` is the person asking for their own data: they get what they may read, so no
 * soft-deleted conversation and no message kept for agents only.
 */
export type ExportScope = { readonly kind: 'server' } | { readonly kind: 'person'; userId: string; asPerson: boolean };

/** PostgreSQL's own microseconds, which a JavaScript Date would round to milliseconds. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

interface PersonSets {
  readonly owned: string[];
  readonly member: string[];
  readonly ownedGroups: string[];
  readonly memberGroups: string[];
}

/** One kind's query: its select (ending in a WHERE), its key in order, and how a row names its key. */
interface KindQuery {
  readonly select: string;
  readonly params: unknown[];
  readonly keys: readonly string[];
  readonly keyOf: (row: Record<string, unknown>) => unknown[];
}

/**
 * The records of the scope, a batch at a time, in the order an import needs them: each kind is
 * read by keyset pages (never all at once), a kind after the kinds it refers to.
 */
export async function* exportRecords(
  q: Queryable,
  scope: ExportScope,
  batch = 500,
): AsyncGenerator<ExportDataRecord[], void, undefined> {
  const sets = scope.kind === 'person' ? await personSets(q, scope.userId, scope.asPerson) : undefined;
  for (const kind of kindQueries(scope, sets)) {
    let cursor: unknown[] | undefined;
    for (;;) {
      const params = [...kind.params];
      const after = cursor
        ? ` AND (${kind.keys.join(', ')}) > (${cursor.map((v) => `$${params.push(v)}`).join(', ')})`
        : '';
      const { rows } = await q.query<Record<string, unknown>>(
        `${kind.select}${after} ORDER BY ${kind.keys.join(', ')} LIMIT ${batch}`,
        params,
      );
      if (rows.length === 0) break;
      yield rows.flatMap(recordsOf) as ExportDataRecord[];
      if (rows.length < batch) break;
      cursor = kind.keyOf(rows.at(-1)!);
    }
  }
}

/** A conversation row carries its fork, which is its own record right after it. */
function recordsOf(row: Record<string, unknown>): Record<string, unknown>[] {
  if (row['kind'] !== 'conversation') return [row];
  const { fork, ...conversation } = row as Record<string, unknown> & { fork: Record<string, unknown> | null };
  return fork ? [conversation, { kind: 'fork', conversationId: conversation['id'], ...fork }] : [conversation];
}

async function personSets(q: Queryable, userId: string, asPerson: boolean): Promise<PersonSets> {
  // A KAOS session's user_id is a field its agent fills in (`user` when it names nobody): data
  // about that person, which an administrator's export of them includes. A person's own export
  // holds what they may read, their memberships, as every read does: a session made for them is
  // theirs by the owner membership made with it, and one they gave away or left is not.
  const kaosUser = asPerson
    ? 'false'
    : 'EXISTS (SELECT 1 FROM kaos_sessions k WHERE k.conversation_id = c.id AND k.user_id = $1)';
  const { rows } = await q.query<{ id: string; owned: boolean }>(
    `SELECT c.id,
            COALESCE(c.group_id, c.id) IN (SELECT group_id FROM conversation_memberships WHERE user_id = $1 AND access_level = 'owner')
            OR COALESCE(c.group_id, c.id) = 'private:' || $1
            OR ${kaosUser} AS owned
     FROM conversations c
     WHERE (COALESCE(c.group_id, c.id) IN (SELECT group_id FROM conversation_memberships WHERE user_id = $1)
            OR COALESCE(c.group_id, c.id) = 'private:' || $1
            OR ${kaosUser})
       ${asPerson ? 'AND c.deleted_at IS NULL' : ''}`,
    [userId],
  );
  const groups = await q.query<{ group_id: string; owner: boolean }>(
    `SELECT group_id, access_level = 'owner' AS owner FROM conversation_memberships WHERE user_id = $1`,
    [userId],
  );
  return {
    owned: rows.filter((r) => r.owned).map((r) => r.id),
    member: rows.filter((r) => !r.owned).map((r) => r.id),
    ownedGroups: [...groups.rows.filter((g) => g.owner).map((g) => g.group_id), `private:${userId}`],
    memberGroups: groups.rows.filter((g) => !g.owner).map((g) => g.group_id),
  };
}

/** Each kind's query, limited to the scope. */
function kindQueries(scope: ExportScope, sets: PersonSets | undefined): KindQuery[] {
  const person = scope.kind === 'person' ? scope : undefined;
  const one = (key: string) => (row: Record<string, unknown>) => [row[key]];
  const two = (a: string, b: string) => (row: Record<string, unknown>) => [row[a], row[b]];
  // In a person's scope each condition takes its sets as parameters; the server's is `true`.
  const within = (column: string, ids: string[] | undefined, params: unknown[]) =>
    ids === undefined ? 'true' : `${column} = ANY($${params.push(ids)}::text[])`;
  const owned = sets?.owned;
  const all = sets ? [...sets.owned, ...sets.member] : undefined;

  const conversationParams: unknown[] = [];
  // A conversation the person is only a member of is named in their export, not described: its
  // title and metadata are its owner's.
  const ownedOnly = (column: string, otherwise: string) =>
    sets ? `CASE WHEN ${within('id', sets.owned, conversationParams)} THEN ${column} ELSE ${otherwise} END` : column;
  const messageParams: unknown[] = [];
  const messageScope = sets
    ? `(${within('conversation_id', sets.owned, messageParams)}
        OR (${within('conversation_id', sets.member, messageParams)} AND sender_id = $${messageParams.push(person!.userId)}))
       ${person!.asPerson ? 'AND audience IS NULL' : ''}`
    : 'true';
  const membershipParams: unknown[] = [];
  const membershipScope = sets
    ? `(${within('group_id', sets.ownedGroups, membershipParams)}
        OR (${within('group_id', sets.memberGroups, membershipParams)} AND user_id = $${membershipParams.push(person!.userId)}))`
    : 'true';
  const metaParams: unknown[] = [];
  const transfersParams: unknown[] = [];
  const episodesParams: unknown[] = [];
  const memoriesParams: unknown[] = [];
  const summariesParams: unknown[] = [];
  const kaosSessionsParams: unknown[] = [];
  const kaosEventsParams: unknown[] = [];
  const arkSessionsParams: unknown[] = [];
  const arkChunksParams: unknown[] = [];
  return [
    {
      select: `SELECT 'conversation' AS kind, id, source_api AS "sourceApi", group_id AS "groupId", next_seq AS "nextSeq",
                      ${ownedOnly('title', 'NULL')} AS title, ${ownedOnly('metadata', `'{}'::jsonb`)} AS metadata,
                      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt",
                      ${iso('deleted_at')} AS "deletedAt",
                      CASE WHEN forked_at_conversation_id IS NOT NULL OR fork_source_conversation_id IS NOT NULL
                           THEN json_build_object('forkedAtConversationId', forked_at_conversation_id,
                                                  'forkedAtMessageId', forked_at_message_id,
                                                  'sourceConversationId', fork_source_conversation_id,
                                                  'sourceSeq', fork_source_seq) END AS fork
               FROM conversations WHERE ${within('id', all, conversationParams)}`,
      params: conversationParams,
      keys: ['id'],
      keyOf: one('id'),
    },
    {
      // Right after the conversations: an ARK stream alone (no messages) has no conversation
      // record, and this one creates it on import, before its memberships.
      select: `SELECT 'ark_session' AS kind, session_id AS "sessionId", ${iso('created_at')} AS "createdAt",
                      ${iso('completed_at')} AS "completedAt"
               FROM ark_sessions WHERE ${within('session_id', owned, arkSessionsParams)}`,
      params: arkSessionsParams,
      keys: ['session_id'],
      keyOf: one('sessionId'),
    },
    {
      select: `SELECT 'conversation_meta' AS kind, group_id AS "groupId", id, version, scene, scene_desc AS "sceneDesc",
                      name, description, ${iso('conversation_created_at')} AS "conversationCreatedAt",
                      default_timezone AS "defaultTimezone", user_details AS "userDetails", tags,
                      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"
               FROM conversation_meta WHERE ${within('group_id', owned, metaParams)}`,
      params: metaParams,
      keys: ['group_id'],
      keyOf: one('groupId'),
    },
    {
      select: `SELECT 'membership' AS kind, group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel",
                      ${iso('created_at')} AS "createdAt"
               FROM conversation_memberships WHERE ${membershipScope}`,
      params: membershipParams,
      keys: ['group_id', 'user_id'],
      keyOf: two('groupId', 'userId'),
    },
    {
      select: `SELECT 'ownership_transfer' AS kind, id, group_id AS "groupId", conversation_id AS "conversationId",
                      from_user_id AS "fromUserId", to_user_id AS "toUserId", status,
                      ${iso('created_at')} AS "createdAt", ${iso('decided_at')} AS "decidedAt"
               FROM conversation_ownership_transfers WHERE ${within('group_id', sets?.ownedGroups, transfersParams)}`,
      params: transfersParams,
      keys: ['id'],
      keyOf: one('id'),
    },
    {
      select: `SELECT 'message' AS kind, conversation_id AS "conversationId", seq, id, message_id AS "messageId",
                      sender_id AS "senderId", sender_name AS "senderName", role, content,
                      ${iso('created_at')} AS "createdAt", ${iso('stored_at')} AS "storedAt",
                      refer_list AS "referList", metadata, source_api AS "sourceApi"
               FROM messages WHERE ${messageScope}`,
      params: messageParams,
      keys: ['conversation_id', 'seq'],
      keyOf: two('conversationId', 'seq'),
    },
    {
      select: `SELECT 'episode' AS kind, id, conversation_id AS "conversationId", start_seq AS "startSeq",
                      end_seq AS "endSeq", message_ids AS "messageIds", ${iso('start_time')} AS "startTime",
                      ${iso('end_time')} AS "endTime", close_reason AS "closeReason", status, version,
                      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"
               FROM episodes WHERE ${within('conversation_id', owned, episodesParams)}`,
      params: episodesParams,
      keys: ['id'],
      keyOf: one('id'),
    },
    {
      select: `SELECT 'episodic_memory' AS kind, id, episode_id AS "episodeId", conversation_id AS "conversationId",
                      version, user_id AS "userId", title, content, ${iso('occurred_at')} AS "occurredAt",
                      ${iso('ended_at')} AS "endedAt", message_ids AS "messageIds", participants, extractor,
                      ${iso('superseded_at')} AS "supersededAt", ${iso('created_at')} AS "createdAt"
               FROM episodic_memories WHERE ${within('conversation_id', owned, memoriesParams)}`,
      params: memoriesParams,
      keys: ['id'],
      keyOf: one('id'),
    },
    {
      // Only finished summaries: one being made, or failed, is the target's summarizer's to make again.
      select: `SELECT 'summary' AS kind, memory_id AS id, conversation_id AS "conversationId", memory_text AS text,
                      start_sequence AS "startSequence", end_sequence AS "endSequence", base_memory_id AS "baseId",
                      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt",
                      generation_time_ms AS "generationTimeMs"
               FROM memory WHERE status = 'completed' AND ${within('conversation_id', owned, summariesParams)}`,
      params: summariesParams,
      keys: ['memory_id'],
      keyOf: one('id'),
    },
    {
      select: `SELECT 'kaos_session' AS kind, agent, session_id AS "sessionId", conversation_id AS "conversationId",
                      app_name AS "appName", user_id AS "userId", ord, next_event AS "nextEvent",
                      ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"
               FROM kaos_sessions WHERE ${within('conversation_id', owned, kaosSessionsParams)}`,
      params: kaosSessionsParams,
      keys: ['agent', 'session_id'],
      keyOf: two('agent', 'sessionId'),
    },
    {
      select: `SELECT 'kaos_event' AS kind, conversation_id AS "conversationId", seq, event_id AS "eventId",
                      ${iso('occurred_at')} AS "occurredAt", event_type AS "eventType",
                      content::text AS content, metadata::text AS metadata
               FROM kaos_events WHERE ${within('conversation_id', owned, kaosEventsParams)}`,
      params: kaosEventsParams,
      keys: ['conversation_id', 'seq'],
      keyOf: two('conversationId', 'seq'),
    },
    {
      select: `SELECT 'ark_chunk' AS kind, session_id AS "sessionId", chunk_seq AS seq, chunk,
                      ${iso('created_at')} AS "createdAt"
               FROM stream_chunks WHERE ${within('session_id', owned, arkChunksParams)}`,
      params: arkChunksParams,
      keys: ['session_id', 'chunk_seq'],
      keyOf: two('sessionId', 'seq'),
    },
  ];
}
