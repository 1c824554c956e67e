import { AppError } from '@memstream/errors';
import type { ExportDataKind, ExportDataRecord } from '@memstream/schemas';
import type { Queryable } from '../store.js';
import { keywordVectorSql, memorySearchText, messageSearchText } from './message-search-text.js';

/**
 * Queues the search rows an import wrote (`searchable`) for the indexer's sweep: no event will
 * bring their vectors (the import goes straight to the store). See unembeddedItems.
 */
const UNEMBEDDED = 'unembedded AS (INSERT INTO search_unembedded (kind, item_id) SELECT kind, item_id FROM searchable)';

type Of<K extends ExportDataKind> = Extract<ExportDataRecord, { kind: K }>;
type Writer<K extends ExportDataKind> = (q: Queryable, records: Array<Of<K>>) => Promise<number>;

/** The rows of a batch, as one jsonb parameter unpacked by jsonb_to_recordset. */
const rows = (columns: string) => `jsonb_to_recordset($1::jsonb) AS r(${columns})`;

/**
 * The statement that stores a batch into `table`: `columns` lists each column with its SQL type as
 * a table definition does, and each takes the record's field of its name in camelCase (`group_id`
 * from `groupId`) unless `fields` names another; `select` turns a field into the column's value,
 * `values` gives a value no field carries. A row whose key is already stored is skipped, and the
 * statement answers how many it stored (`n`). The batch is `input` (aliased `r` in the insert) for
 * `after`, more statements on what the insert `returning` gave (as `ins`); `extra` declares fields
 * no column takes, for them.
 */
function insertSql(
  table: string,
  columns: string,
  o: {
    fields?: Record<string, string>;
    select?: Record<string, (field: string) => string>;
    values?: Record<string, string>;
    extra?: string;
    returning?: string;
    order?: string;
    after?: string;
  } = {},
): string {
  const typed = columns.split(',').map((c) => c.trim().split(/\s+/) as [string, string]);
  const fieldOf = (column: string) =>
    o.fields?.[column] ?? column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const declared = typed.map(([column, type]) => `"${fieldOf(column)}" ${type}`);
  const selected = typed.map(([column]) => o.select?.[column]?.(`r."${fieldOf(column)}"`) ?? `r."${fieldOf(column)}"`);
  const names = [...typed.map(([column]) => column), ...Object.keys(o.values ?? {})];
  return `WITH input AS (SELECT * FROM ${rows([...declared, ...(o.extra ? [o.extra] : [])].join(', '))}),
     ins AS (
       INSERT INTO ${table} (${names.join(', ')})
       SELECT ${[...selected, ...Object.values(o.values ?? {})].join(', ')} FROM input r ${o.order ? `ORDER BY ${o.order}` : ''}
       ON CONFLICT DO NOTHING RETURNING ${o.returning ?? '1'})${o.after ? `,\n     ${o.after}` : ''}
     SELECT count(*) AS n FROM ins`;
}

/** A JSON array of strings as the text[] it is stored as. */
const textArray = (field: string) => `ARRAY(SELECT jsonb_array_elements_text(${field}))`;

async function inserted(q: Queryable, sql: string, records: readonly object[]): Promise<number> {
  const { rows: result } = await q.query<{ n: number }>(sql, [JSON.stringify(records)]);
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

/**
 * Refuses messages whose conversation is not stored (earlier in the import, or before it). Messages
 * have no foreign key to their conversation (migration 0027: the append statement upserts the
 * conversation it numbers from); an import inserts rows as they come, so it checks here what the
 * key checked, and holds the conversations as the key did (FOR KEY SHARE, until the import's
 * transaction ends) so that a purge cannot remove one under the messages being imported.
 */
async function refuseUnknownConversations(q: Queryable, records: ReadonlyArray<{ conversationId: string }>) {
  const { rows: missing } = await q.query<{ id: string }>(
    `WITH wanted AS (SELECT DISTINCT r."conversationId" AS id FROM ${rows('"conversationId" text')}),
          held AS (SELECT c.id FROM conversations c WHERE c.id IN (SELECT id FROM wanted) FOR KEY SHARE)
     SELECT id FROM wanted WHERE id NOT IN (SELECT id FROM held) LIMIT 1`,
    [JSON.stringify(records.map((r) => ({ conversationId: r.conversationId })))],
  );
  if (missing.length > 0)
    throw new AppError(
      'INVALID_PARAMETER',
      'a message record names a conversation not stored before it (a record must follow what it refers to)',
    );
}

const CONVERSATIONS = insertSql(
  'conversations',
  `id text, source_api text, group_id text, next_seq bigint, title text, metadata jsonb, created_at timestamptz,
   updated_at timestamptz, deleted_at timestamptz`,
);

const CONVERSATION_META = insertSql(
  'conversation_meta',
  `group_id text, id text, version text, scene text, scene_desc jsonb, name text, description text,
   conversation_created_at timestamptz, default_timezone text, user_details jsonb, tags jsonb, created_at timestamptz,
   updated_at timestamptz`,
);

const MEMBERSHIPS = insertSql(
  'conversation_memberships',
  'group_id text, user_id text, access_level text, created_at timestamptz',
);

const OWNERSHIP_TRANSFERS = insertSql(
  'conversation_ownership_transfers',
  `id text, group_id text, conversation_id text, from_user_id text, to_user_id text, status text,
   created_at timestamptz, decided_at timestamptz`,
);

// The keyword side of each search row comes with the message, as the converter writes it.
const MESSAGES = insertSql(
  'messages',
  `id bigint, conversation_id text, seq bigint, message_id text, sender_id text, sender_name text, role text,
   content text, created_at timestamptz, stored_at timestamptz, refer_list jsonb, metadata jsonb, source_api text`,
  {
    extra: '"searchText" text',
    returning: 'id, conversation_id, message_id, sender_id, created_at, audience',
    after: `searchable AS (
       INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv, audience)
       SELECT 'message', i.id::text, i.conversation_id, i.sender_id, n."searchText", i.created_at, ARRAY[i.message_id],
              ${keywordVectorSql('n."searchText"')}, i.audience
       FROM ins i JOIN input n ON n.id = i.id
       WHERE n."searchText" <> ''
       ON CONFLICT (kind, item_id) DO NOTHING
       RETURNING kind, item_id),
     ${UNEMBEDDED}`,
  },
);

const EPISODES = insertSql(
  'episodes',
  `id bigint, conversation_id text, start_seq bigint, end_seq bigint, message_ids jsonb, start_time timestamptz,
   end_time timestamptz, close_reason text, status text, version int, created_at timestamptz, updated_at timestamptz`,
  { select: { message_ids: textArray } },
);

const EPISODIC_MEMORIES = insertSql(
  'episodic_memories',
  `id text, episode_id bigint, conversation_id text, version int, user_id text, title text, content text,
   occurred_at timestamptz, ended_at timestamptz, message_ids jsonb, participants jsonb, extractor text,
   superseded_at timestamptz, created_at timestamptz`,
  {
    select: { message_ids: textArray, participants: textArray },
    extra: '"searchText" text',
    returning: 'id, conversation_id, user_id, occurred_at, message_ids, superseded_at',
    after: `searchable AS (
       INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv)
       SELECT 'episodic_memory', i.id, i.conversation_id, i.user_id, n."searchText", i.occurred_at, i.message_ids,
              ${keywordVectorSql('n."searchText"')}
       FROM ins i JOIN input n ON n.id = i.id
       WHERE i.superseded_at IS NULL
       ON CONFLICT (kind, item_id) DO NOTHING
       RETURNING kind, item_id),
     ${UNEMBEDDED}`,
  },
);

// A summary built on one the export left out (it was not finished) stands on its own.
const SUMMARIES = insertSql(
  'memory',
  `memory_id bigint, conversation_id text, memory_text text, start_sequence int, end_sequence int,
   base_memory_id bigint, created_at timestamptz, updated_at timestamptz, generation_time_ms int`,
  {
    fields: { memory_id: 'id', memory_text: 'text', base_memory_id: 'baseId' },
    select: {
      base_memory_id: (base) =>
        `CASE WHEN EXISTS (SELECT 1 FROM memory b WHERE b.memory_id = ${base}) OR ${base} IN (SELECT x.id FROM input x)
         THEN ${base} END`,
    },
    values: { status: `'completed'` },
    order: 'r."id"',
  },
);

const KAOS_SESSIONS = insertSql(
  'kaos_sessions',
  `agent text, session_id text, conversation_id text, app_name text, user_id text, ord bigint, next_event bigint,
   created_at timestamptz, updated_at timestamptz`,
);

const KAOS_EVENTS = insertSql(
  'kaos_events',
  'conversation_id text, seq bigint, event_id text, occurred_at timestamptz, event_type text, content text, metadata text',
  { select: { content: (f) => `${f}::json`, metadata: (f) => `${f}::json` } },
);

const ARK_SESSIONS = insertSql('ark_sessions', 'session_id text, created_at timestamptz, completed_at timestamptz');

const ARK_CHUNKS = insertSql(
  'stream_chunks',
  'session_id text, chunk_seq bigint, chunk jsonb, created_at timestamptz',
  {
    fields: { chunk_seq: 'seq' },
  },
);

const WRITERS: { [K in ExportDataKind]: Writer<K> } = {
  conversation: (q, records) => inserted(q, CONVERSATIONS, records),
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
      CONVERSATION_META,
      records.map((r) => ({
        ...r,
        sceneDesc: r.sceneDesc ?? null,
        userDetails: r.userDetails ?? {},
        tags: r.tags ?? [],
      })),
    ),
  membership: (q, records) => inserted(q, MEMBERSHIPS, records),
  ownership_transfer: (q, records) => inserted(q, OWNERSHIP_TRANSFERS, records),
  message: async (q, records) => {
    await refuseUnknownConversations(q, records);
    await refuseTakenIds(
      q,
      `SELECT m.id FROM ${rows(`id bigint, "conversationId" text, seq bigint`)}
       JOIN messages m ON m.id = r.id WHERE NOT (m.conversation_id = r."conversationId" AND m.seq = r.seq) LIMIT 1`,
      records,
      'message',
    );
    return inserted(
      q,
      MESSAGES,
      records.map((r) => ({
        ...r,
        searchText: messageSearchText({ ...r, sender_name: r.senderName, sender_id: r.senderId }),
      })),
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
    return inserted(q, EPISODES, records);
  },
  episodic_memory: (q, records) =>
    inserted(
      q,
      EPISODIC_MEMORIES,
      records.map((r) => ({ ...r, searchText: memorySearchText(r) })),
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
    return inserted(q, SUMMARIES, records);
  },
  kaos_session: (q, records) => inserted(q, KAOS_SESSIONS, records),
  kaos_event: (q, records) => inserted(q, KAOS_EVENTS, records),
  ark_session: (q, records) => inserted(q, ARK_SESSIONS, records),
  ark_chunk: (q, records) => inserted(q, ARK_CHUNKS, records),
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
