import type { Queryable } from '../../store.js';
import {
  ID_TAKEN,
  inConversation,
  inserted,
  insertSql,
  textArray,
  withIdsTaken,
  refuseIdsTakenElsewhere,
} from '../../participant/import-rows.js';
import type { TableImport } from '../../participant/table-import.js';
import { withGroups } from '../conversations/conversation-sql.js';
import { insertSearchRowsSql } from '../search/search-rows.js';
import { queueUnembeddedSql } from '../search/search-sql.js';
import { keywordVectorSql, memorySearchText } from '../search/search-text.js';

/**
 * The group of a record's conversation, read before the statement (withGroups), as Citus plans no
 * lookup correlated with the batch's rows beside its CTE. A conversation not stored is its own
 * group (migration 0036): the row then fails on the conversation's foreign key, or (an episodic
 * memory, whose only key is to its episode) is stored, either way as before.
 */
const CONVERSATION_GROUP = 'r."groupKey"';

const EPISODES = insertSql(
  'episodes',
  `id bigint, conversation_id text, start_seq bigint, end_seq bigint, message_ids jsonb, start_time timestamptz,
   end_time timestamptz, close_reason text, status text, version int, created_at timestamptz, updated_at timestamptz`,
  'conversation_id',
  { select: { message_ids: textArray }, values: { group_key: CONVERSATION_GROUP }, extra: '"groupKey" text' },
);

// A current memory's search row is written with it, and queued for its vector.
const EPISODIC_MEMORIES = insertSql(
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
     ${queueUnembeddedSql('searchable')}`,
  },
);

// A summary whose base is not kept stands alone: the export left the base out (it was unfinished),
// or the base is in another group, where a key to it would leave the shard. `baseKept`
// (withBasesKept, read first) says whether the base is in the summary's group or in its batch.
const SUMMARIES = insertSql(
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
 * Each summary with `baseKept`: the summary it was built on is stored in its group, or comes in
 * the same batch for the same conversation (SUMMARIES keeps the base only then).
 */
async function withBasesKept<R extends { id: number; conversationId: string; baseId?: number | null | undefined }>(
  q: Queryable,
  records: ReadonlyArray<R & { groupKey: string }>,
) {
  const bases = [...new Set(records.flatMap((r) => (r.baseId == null ? [] : [r.baseId])))];
  const { rows: found } = await q.query<{ memory_id: string; group_key: string }>(
    'SELECT memory_id::text, group_key FROM memory WHERE memory_id = ANY($1::int8[])',
    [bases],
  );
  const stored = new Set(found.map((r) => `${r.group_key}\u0000${r.memory_id}`));
  const inBatch = new Set(records.map((r) => `${r.conversationId}\u0000${r.id}`));
  return records.map((r) => ({
    ...r,
    baseKept:
      r.baseId != null &&
      (stored.has(`${r.groupKey}\u0000${r.baseId}`) || inBatch.has(`${r.conversationId}\u0000${r.baseId}`)),
  }));
}

export const episodeImport: TableImport<'episode'> = {
  kind: 'episode',
  needs: inConversation,
  check: (q, records) =>
    refuseIdsTakenElsewhere(q, records, {
      what: 'episode',
      table: 'episodes',
      columns: `id bigint, "conversationId" text, "startSeq" bigint`,
      sameRow: `x.conversation_id = r."conversationId" AND x.start_seq = r."startSeq"`,
    }),
  write: async (q, records) => inserted(q, EPISODES, await withGroups(q, records)),
  numbered: 'id',
};

export const episodicMemoryImport: TableImport<'episodic_memory'> = {
  kind: 'episodic_memory',
  needs: inConversation,
  write: async (q, records) =>
    inserted(
      q,
      EPISODIC_MEMORIES,
      await withIdsTaken(
        q,
        'episodic_memories',
        (await withGroups(q, records)).map((r) => ({ ...r, searchText: memorySearchText(r) })),
      ),
    ),
};

export const summaryImport: TableImport<'summary'> = {
  kind: 'summary',
  needs: inConversation,
  check: (q, records) =>
    refuseIdsTakenElsewhere(q, records, {
      what: 'summary',
      table: 'memory',
      key: 'memory_id',
      columns: `id bigint, "conversationId" text, "startSequence" int`,
      sameRow: `x.conversation_id = r."conversationId" AND x.start_sequence = r."startSequence"`,
    }),
  write: async (q, records) => inserted(q, SUMMARIES, await withBasesKept(q, await withGroups(q, records))),
  numbered: 'memory_id',
};
