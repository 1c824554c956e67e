import { AppError } from '@memstream/errors';
import type { ExportDataKind, ExportDataRecord } from '@memstream/schemas';
import type { Queryable } from '../store.js';
import { memorySearchText, messageSearchText } from './message-search-text.js';

/**
 * Marks a search row an import wrote without its vector: no event will bring one (the import goes
 * straight to the store), so the indexer's sweep embeds these (see unembeddedItems).
 */
export const UNEMBEDDED_MODEL = '';

type Of<K extends ExportDataKind> = Extract<ExportDataRecord, { kind: K }>;
type Writer<K extends ExportDataKind> = (q: Queryable, records: Array<Of<K>>) => Promise<number>;

/** The rows of a batch, as one jsonb parameter unpacked by jsonb_to_recordset. */
const rows = (columns: string) => `jsonb_to_recordset($1::jsonb) AS r(${columns})`;

async function inserted(q: Queryable, sql: string, records: readonly object[], more: unknown[] = []): Promise<number> {
  const { rows: result } = await q.query<{ n: number }>(sql, [JSON.stringify(records), ...more]);
  return Number(result[0]?.n ?? 0);
}

/** Refuses a batch whose server-made id the target already uses for another row: an import into a server that has data of its own. */
async function refuseTakenIds(q: Queryable, sql: string, records: readonly object[], what: string): Promise<void> {
  const { rows: taken } = await q.query<{ id: string }>(sql, [JSON.stringify(records)]);
  if (taken.length > 0)
    throw new AppError('CONFLICT', `${what} id ${taken[0]!.id} is already another ${what} on this server`, {
      details: { resource: what, id: String(taken[0]!.id) },
    });
}

const WRITERS: { [K in ExportDataKind]: Writer<K> } = {
  conversation: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO conversations (id, source_api, group_id, next_seq, title, metadata, created_at, updated_at, deleted_at)
         SELECT id, "sourceApi", "groupId", "nextSeq", title, metadata, "createdAt", "updatedAt", "deletedAt"
         FROM ${rows(`id text, "sourceApi" text, "groupId" text, "nextSeq" bigint, title text, metadata jsonb,
                      "createdAt" timestamptz, "updatedAt" timestamptz, "deletedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  fork: (q, records) =>
    inserted(
      q,
      `WITH upd AS (
         UPDATE conversations c SET forked_at_conversation_id = r."forkedAtConversationId",
                forked_at_message_id = r."forkedAtMessageId", fork_source_conversation_id = r."sourceConversationId",
                fork_source_seq = r."sourceSeq"
         FROM ${rows(`"conversationId" text, "forkedAtConversationId" text, "forkedAtMessageId" text,
                      "sourceConversationId" text, "sourceSeq" bigint`)}
         WHERE c.id = r."conversationId" AND c.forked_at_conversation_id IS NULL AND c.fork_source_conversation_id IS NULL
         RETURNING 1)
       SELECT count(*) AS n FROM upd`,
      records,
    ),
  conversation_meta: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO conversation_meta (group_id, id, version, scene, scene_desc, name, description, conversation_created_at,
                                        default_timezone, user_details, tags, created_at, updated_at)
         SELECT "groupId", id, version, scene, "sceneDesc", name, description, "conversationCreatedAt", "defaultTimezone",
                "userDetails", tags, "createdAt", "updatedAt"
         FROM ${rows(`"groupId" text, id text, version text, scene text, "sceneDesc" jsonb, name text, description text,
                      "conversationCreatedAt" timestamptz, "defaultTimezone" text, "userDetails" jsonb, tags jsonb,
                      "createdAt" timestamptz, "updatedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records.map((r) => ({
        ...r,
        sceneDesc: r.sceneDesc ?? null,
        userDetails: r.userDetails ?? {},
        tags: r.tags ?? [],
      })),
    ),
  membership: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO conversation_memberships (group_id, user_id, access_level, created_at)
         SELECT "groupId", "userId", "accessLevel", "createdAt"
         FROM ${rows(`"groupId" text, "userId" text, "accessLevel" text, "createdAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  ownership_transfer: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO conversation_ownership_transfers (id, group_id, conversation_id, from_user_id, to_user_id, status, created_at, decided_at)
         SELECT id, "groupId", "conversationId", "fromUserId", "toUserId", status, "createdAt", "decidedAt"
         FROM ${rows(`id text, "groupId" text, "conversationId" text, "fromUserId" text, "toUserId" text, status text,
                      "createdAt" timestamptz, "decidedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  message: async (q, records) => {
    await refuseTakenIds(
      q,
      `SELECT m.id FROM ${rows(`id bigint, "conversationId" text, seq bigint`)}
       JOIN messages m ON m.id = r.id WHERE NOT (m.conversation_id = r."conversationId" AND m.seq = r.seq) LIMIT 1`,
      records,
      'message',
    );
    // The keyword side of each search row comes with the message, as the converter writes it.
    return inserted(
      q,
      `WITH input AS (
         SELECT * FROM ${rows(`id bigint, "conversationId" text, seq bigint, "messageId" text, "senderId" text,
                               "senderName" text, role text, content text, "createdAt" timestamptz, "storedAt" timestamptz,
                               "referList" jsonb, metadata jsonb, "sourceApi" text, "searchText" text`)}),
       ins AS (
         INSERT INTO messages (id, conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at,
                               stored_at, refer_list, metadata, source_api)
         SELECT id, "conversationId", seq, "messageId", "senderId", "senderName", role, content, "createdAt", "storedAt",
                "referList", metadata, "sourceApi" FROM input
         ON CONFLICT DO NOTHING RETURNING id, conversation_id, message_id, sender_id, created_at, audience),
       searchable AS (
         INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv,
                                   embedding_model, audience)
         SELECT 'message', i.id::text, i.conversation_id, i.sender_id, n."searchText", i.created_at, ARRAY[i.message_id],
                to_tsvector('english', n."searchText"), $2, i.audience
         FROM ins i JOIN input n ON n.id = i.id
         WHERE n."searchText" <> ''
         ON CONFLICT (kind, item_id) DO NOTHING)
       SELECT count(*) AS n FROM ins`,
      records.map((r) => ({
        ...r,
        searchText: messageSearchText({ ...r, sender_name: r.senderName, sender_id: r.senderId }),
      })),
      [UNEMBEDDED_MODEL],
    );
  },
  episode: async (q, records) => {
    await refuseTakenIds(
      q,
      `SELECT e.id FROM ${rows(`id bigint, "conversationId" text, "startSeq" bigint`)}
       JOIN episodes e ON e.id = r.id WHERE NOT (e.conversation_id = r."conversationId" AND e.start_seq = r."startSeq") LIMIT 1`,
      records,
      'episode',
    );
    return inserted(
      q,
      `WITH ins AS (
         INSERT INTO episodes (id, conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason,
                               status, version, created_at, updated_at)
         SELECT id, "conversationId", "startSeq", "endSeq", ARRAY(SELECT jsonb_array_elements_text("messageIds")),
                "startTime", "endTime", "closeReason", status, version, "createdAt", "updatedAt"
         FROM ${rows(`id bigint, "conversationId" text, "startSeq" bigint, "endSeq" bigint, "messageIds" jsonb,
                      "startTime" timestamptz, "endTime" timestamptz, "closeReason" text, status text, version int,
                      "createdAt" timestamptz, "updatedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    );
  },
  episodic_memory: (q, records) =>
    inserted(
      q,
      `WITH input AS (
         SELECT * FROM ${rows(`id text, "episodeId" bigint, "conversationId" text, version int, "userId" text, title text,
                               content text, "occurredAt" timestamptz, "endedAt" timestamptz, "messageIds" jsonb,
                               participants jsonb, extractor text, "supersededAt" timestamptz, "createdAt" timestamptz,
                               "searchText" text`)}),
       ins AS (
         INSERT INTO episodic_memories (id, episode_id, conversation_id, version, user_id, title, content, occurred_at,
                                        ended_at, message_ids, participants, extractor, superseded_at, created_at)
         SELECT id, "episodeId", "conversationId", version, "userId", title, content, "occurredAt", "endedAt",
                ARRAY(SELECT jsonb_array_elements_text("messageIds")), ARRAY(SELECT jsonb_array_elements_text(participants)),
                extractor, "supersededAt", "createdAt" FROM input
         ON CONFLICT DO NOTHING RETURNING id, conversation_id, user_id, occurred_at, message_ids, superseded_at),
       searchable AS (
         INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv, embedding_model)
         SELECT 'episodic_memory', i.id, i.conversation_id, i.user_id, n."searchText", i.occurred_at, i.message_ids,
                to_tsvector('english', n."searchText"), $2
         FROM ins i JOIN input n ON n.id = i.id
         WHERE i.superseded_at IS NULL
         ON CONFLICT (kind, item_id) DO NOTHING)
       SELECT count(*) AS n FROM ins`,
      records.map((r) => ({ ...r, searchText: memorySearchText(r) })),
      [UNEMBEDDED_MODEL],
    ),
  summary: async (q, records) => {
    await refuseTakenIds(
      q,
      `SELECT m.memory_id AS id FROM ${rows(`id bigint, "conversationId" text, "startSequence" int`)}
       JOIN memory m ON m.memory_id = r.id
       WHERE NOT (m.conversation_id = r."conversationId" AND m.start_sequence = r."startSequence") LIMIT 1`,
      records,
      'summary',
    );
    // A summary built on one the export left out (it was not finished) stands on its own.
    return inserted(
      q,
      `WITH input AS (
         SELECT * FROM ${rows(`id bigint, "conversationId" text, text text, "startSequence" int, "endSequence" int,
                               "baseId" bigint, "createdAt" timestamptz, "updatedAt" timestamptz, "generationTimeMs" int`)}),
       ins AS (
         INSERT INTO memory (memory_id, conversation_id, memory_text, start_sequence, end_sequence, base_memory_id, status,
                             created_at, updated_at, generation_time_ms)
         SELECT id, "conversationId", text, "startSequence", "endSequence",
                CASE WHEN EXISTS (SELECT 1 FROM memory b WHERE b.memory_id = r."baseId")
                       OR r."baseId" IN (SELECT x.id FROM input x) THEN r."baseId" END,
                'completed', "createdAt", "updatedAt", "generationTimeMs"
         FROM input r
         ORDER BY id
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    );
  },
  kaos_session: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id, ord, next_event, created_at, updated_at)
         SELECT agent, "sessionId", "conversationId", "appName", "userId", ord, "nextEvent", "createdAt", "updatedAt"
         FROM ${rows(`agent text, "sessionId" text, "conversationId" text, "appName" text, "userId" text, ord bigint,
                      "nextEvent" bigint, "createdAt" timestamptz, "updatedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  kaos_event: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO kaos_events (conversation_id, seq, event_id, occurred_at, event_type, content, metadata)
         SELECT "conversationId", seq, "eventId", "occurredAt", "eventType", content::json, metadata::json
         FROM ${rows(`"conversationId" text, seq bigint, "eventId" text, "occurredAt" timestamptz, "eventType" text,
                      content text, metadata text`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  ark_session: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO ark_sessions (session_id, created_at, completed_at)
         SELECT "sessionId", "createdAt", "completedAt"
         FROM ${rows(`"sessionId" text, "createdAt" timestamptz, "completedAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
  ark_chunk: (q, records) =>
    inserted(
      q,
      `WITH ins AS (
         INSERT INTO stream_chunks (session_id, chunk_seq, chunk, created_at)
         SELECT "sessionId", seq, chunk, "createdAt"
         FROM ${rows(`"sessionId" text, seq bigint, chunk jsonb, "createdAt" timestamptz`)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*) AS n FROM ins`,
      records,
    ),
};

/**
 * Stores a batch of one kind's records with the ids, sequences and times they carry; a record
 * whose key is already stored is left as it is (so a second import of the same export adds
 * nothing). Returns how many were stored.
 */
export async function importRecords<K extends ExportDataKind>(
  q: Queryable,
  kind: K,
  records: Array<Of<K>>,
): Promise<number> {
  if (records.length === 0) return 0;
  return (WRITERS[kind] as Writer<K>)(q, records);
}

/**
 * Numbers from here up are for records that came without one of a server's (mem0's memories get
 * their episodes' numbers there, from their ids): the server's own numbering does not follow them.
 */
export const UNNUMBERED_FROM = 2 ** 52;

/**
 * Moves each server-made numbering past what the import brought, so the target's next message,
 * episode, summary, KAOS session and stream chunk get numbers of their own.
 */
export async function advanceSequences(q: Queryable): Promise<void> {
  for (const [table, column] of [
    ['messages', 'id'],
    ['episodes', 'id'],
    ['memory', 'memory_id'],
    ['kaos_sessions', 'ord'],
    ['stream_chunks', 'chunk_seq'],
  ] as const) {
    await q.query(
      `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), m)
       FROM (SELECT max(${column}) AS m FROM ${table} WHERE ${column} < ${UNNUMBERED_FROM}) x
       WHERE m IS NOT NULL AND m > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${seqName(table, column)})`,
    );
  }
}

const seqName = (table: string, column: string) => `${table}_${column}_seq`;
