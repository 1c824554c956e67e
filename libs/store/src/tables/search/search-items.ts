import { createHash } from 'node:crypto';
import type { Queryable, Store } from '../../store.js';
import { runsByShardGroup, type ShardGroupsOf } from '../../shard-groups.js';
import { keywordVectorSql } from './search-text.js';
import { groupsOfMemories, lockMemories } from '../memories/episodic-memories.js';
import { joinCurrentMemory } from '../memories/memory-sql.js';
import {
  dropZeroedFrequencies,
  insertSearchRowsSql,
  type SearchKind,
  upsertMemoryRowsSql,
  type ZeroedFrequencies,
  zeroedOf,
} from './search-rows.js';
import { joinMessage, lockMessagesByIdOrKey, messagesById } from '../conversations/message-sql.js';

/**
 * A vector as pgvector's text form takes it. pgvector keeps float4, and nine significant digits
 * name every float4 exactly, so a Float32Array (what the models return) is written with nine
 * instead of the seventeen its doubles print with: a third less to format and to send, the
 * same stored vector. Anything else is written as it prints.
 */
export function vectorLiteral(v: ArrayLike<number>): string {
  const digits = v instanceof Float32Array ? (x: number) => x.toPrecision(9) : String;
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    parts[i] = Number.isFinite(x) ? digits(x) : '0';
  }
  return `[${parts.join(',')}]`;
}

/** A message to index: its key, the text to index, and its vector. */
export interface MessageToIndex {
  /** The group the message is stored under (messages.group_key): its rows are locked by it. */
  readonly groupKey: string;
  readonly conversationId: string;
  readonly messageId: string;
  readonly text: string;
  readonly embedding: ArrayLike<number>;
  /**
   * The search item id of the turn whose words the vector carries besides the message's own
   * (turnEmbeddingInputs); null or unset: the message's words only.
   */
  readonly contextItemId?: string | null;
}

/**
 * Gives stored messages their vectors: one search_vectors row each (migration 0025), inserted once
 * and replaced by a redelivery or a re-embedding. The keyword side of a message's search row was
 * written with the message (appendMessages); a row that is missing (a message stored before search
 * rows came with messages) is written whole first. Reads the rest from the message row itself, so
 * a message deleted meanwhile is not resurrected: the row is locked while it is read (FOR KEY
 * SHARE), because a deletion committing between this statement's snapshot and its insert would
 * otherwise leave the insert a free key, and a search row holding the words of a message that is
 * gone (an erasure's test caught it). The search row is locked the same way, and one deleted
 * meanwhile is skipped. A vector made with the turn before it is written only if that turn still
 * exists once locked the same way: a deletion that committed after the vector was made (and
 * cleared the vectors naming the turn before this one was written) leaves the item out, for the
 * caller to embed again from the turn's new context. Returns the keys written. A vector replaced
 * is stamped `at`, this indexer's time: indexed_at only orders the re-embedding backlog.
 *
 * Every row is read and locked by its group (the shard column), so the statement reaches the
 * shards of the items' groups only. Citus cannot run this one statement (it runs a CTE that locks
 * as a subplan of its own, whose rows it then fails to read): writeMessageVectorsByShardGroup,
 * on a layout that splits, locks first and writes after, in one transaction per shard group.
 */
export async function writeMessageVectors(
  q: Queryable,
  model: string,
  items: readonly MessageToIndex[],
  at = new Date(),
): Promise<Array<{ conversationId: string; messageId: string }>> {
  return vectorWrite(q, model, items, at, 'FOR KEY SHARE');
}

/**
 * The write of writeMessageVectors. `lock` is the locking clause of its reads: FOR KEY SHARE in
 * the one statement, or nothing when lockVectorRows has locked the rows already in this
 * transaction (the statement's snapshot, taken after, sees them as they stay until commit).
 */
async function vectorWrite(
  q: Queryable,
  model: string,
  items: readonly MessageToIndex[],
  at: Date,
  lock: 'FOR KEY SHARE' | '',
): Promise<Array<{ conversationId: string; messageId: string }>> {
  if (items.length === 0) return [];
  const contexts = [...new Set(items.flatMap((i) => (i.contextItemId ? [i.contextItemId] : [])))];
  const { rows } = await q.query<{ conversation_id: string; message_id: string }>(
    `WITH held AS MATERIALIZED (
       ${messagesById('$9::text[]', '$7::int8[]', lock)}
     ),
     source AS MATERIALIZED (
       SELECT m.id::text AS item_id, m.group_key, m.conversation_id, m.message_id, m.sender_id, m.created_at, m.audience,
              t.body, t.vec, t.ctx
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::text[], $10::text[]) AS t(c, mid, body, vec, ctx, g)
       ${joinMessage('m', 't.g', 't.c', 't.mid')}
       WHERE m.group_key = ANY($9::text[]) AND (t.ctx IS NULL OR t.ctx IN (SELECT id FROM held))
       ${lock && `${lock} OF m`}
     ),
     -- only rows from before search rows came with messages (filtered first: offered to ON
     -- CONFLICT, every row had its text parsed into a tsvector and its key tried, to be refused;
     -- 20 of 207 µs of server CPU a vector, batches of 16). An anti-join, not NOT EXISTS: Citus
     -- plans no subquery correlated with a CTE.
     ${insertSearchRowsSql(
       'filled',
       'message',
       `SELECT n.group_key, 'message', n.item_id, n.conversation_id, n.sender_id, n.body, n.created_at, ARRAY[n.message_id],
              ${keywordVectorSql('n.body')}, n.audience
       FROM source n
       LEFT JOIN search_items s ON s.group_key = n.group_key AND s.kind = 'message' AND s.item_id = n.item_id
       WHERE s.item_id IS NULL`,
     )},
     -- The rows to write carry their vectors along, each CTE read once: the planner, which
     -- expects one row of the source (its join of the keys with messages by three columns), joined
     -- later CTEs by nested loops, reading the whole source again for each row, wide with the
     -- vectors as text and spilled to disk past work_mem (1,000 vectors: 9.5 s, no HNSW index).
     locked AS (  -- a search row deleted meanwhile is skipped, and none is deleted until this commits
       SELECT n.item_id, n.group_key, n.conversation_id, n.message_id, n.sender_id, n.created_at, n.audience, n.vec, n.ctx
       FROM source n
       JOIN search_items s ON s.group_key = n.group_key AND s.kind = 'message' AND s.item_id = n.item_id
       WHERE s.group_key = ANY($9::text[])
       ${lock && `${lock} OF s`}
     ),
     present AS (
       SELECT * FROM locked
       UNION ALL
       SELECT n.item_id, n.group_key, n.conversation_id, n.message_id, n.sender_id, n.created_at, n.audience, n.vec, n.ctx
       FROM filled f JOIN source n ON n.group_key = f.group_key AND n.item_id = f.item_id
     ),
     written AS (
       INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, audience, embedding,
                                   embedding_model, context_item_id)
       SELECT p.group_key, 'message', p.item_id, p.conversation_id, p.sender_id, p.created_at, p.audience, p.vec::vector, $5, p.ctx
       FROM present p
       ON CONFLICT (group_key, kind, item_id) DO UPDATE SET embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model,
         context_item_id = EXCLUDED.context_item_id, indexed_at = $8::timestamptz
       RETURNING group_key, item_id
     ),
     dequeued AS (  -- an imported turn, or one whose context was forgotten, is embedded now
       DELETE FROM search_unembedded u USING written w
        WHERE u.group_key = w.group_key AND u.kind = 'message' AND u.item_id = w.item_id
     )
     -- every row of present is written: the upsert has no condition, and present holds each key once
     SELECT conversation_id, message_id FROM present`,
    [
      items.map((i) => i.conversationId),
      items.map((i) => i.messageId),
      items.map((i) => i.text),
      items.map((i) => vectorLiteral(i.embedding)),
      model,
      items.map((i) => i.contextItemId ?? null),
      contexts.map(Number),
      at,
      [...new Set(items.map((i) => i.groupKey))],
      items.map((i) => i.groupKey),
    ],
  );
  return rows.map((r) => ({ conversationId: r.conversation_id, messageId: r.message_id }));
}

/**
 * What writeMessageVectors locks as it reads, locked by statements of their own in the caller's
 * transaction, each on the one shard group of `items`: the messages (the items' and the turns
 * their vectors carry, in id order), then the items' search rows.
 */
async function lockVectorRows(tx: Queryable, items: readonly MessageToIndex[]): Promise<void> {
  const groups = [...new Set(items.map((i) => i.groupKey))];
  const contexts = [...new Set(items.flatMap((i) => (i.contextItemId ? [Number(i.contextItemId)] : [])))];
  const rows = await lockMessagesByIdOrKey(tx, groups, contexts, items);
  // the items' own rows (a turn may be another's context too): their search rows are written
  const itemKeys = new Set(items.map((i) => JSON.stringify([i.groupKey, i.conversationId, i.messageId])));
  const ids = rows
    .filter((r) => itemKeys.has(JSON.stringify([r.group_key, r.conversation_id, r.message_id])))
    .map((r) => r.id);
  if (ids.length === 0) return;
  await tx.query(
    `SELECT 1 FROM search_items WHERE group_key = ANY($1::text[]) AND kind = 'message' AND item_id = ANY($2::text[])
      ORDER BY item_id FOR KEY SHARE`,
    [groups, ids],
  );
}

/**
 * writeMessageVectors over the shard groups of the items' groups (runsByShardGroup): without
 * `shardGroups` (the plain layout) one statement, as one node is best served (the indexer's hot
 * path); with them, per shard group a transaction that locks the rows (lockVectorRows) and then
 * writes, as Citus keeps a statement's locks on one shard group and runs the one statement's
 * locking reads where it cannot read their rows back. Given a Queryable, not a Store, the runs
 * go one after the other in the caller's transaction.
 */
export async function writeMessageVectorsByShardGroup(
  store: Queryable | Store,
  model: string,
  items: readonly MessageToIndex[],
  shardGroups: ShardGroupsOf | undefined,
  at = new Date(),
): Promise<Array<{ conversationId: string; messageId: string }>> {
  if (shardGroups === undefined) return writeMessageVectors(store, model, items, at);
  const written: Array<{ conversationId: string; messageId: string }> = [];
  for (const run of await runsByShardGroup(store, items, (i) => i.groupKey, shardGroups)) {
    const rows = await inTransaction(store, async (tx) => {
      await lockVectorRows(tx, run);
      return vectorWrite(tx, model, run, at, '');
    });
    written.push(...rows);
  }
  return written;
}

/** writeMessageVectors, counting the rows written. */
export async function indexMessages(q: Queryable, model: string, items: readonly MessageToIndex[]): Promise<number> {
  return (await writeMessageVectors(q, model, items)).length;
}

export interface MemoryToIndex {
  readonly memoryId: string;
  readonly text: string;
  readonly embedding: ArrayLike<number>;
}

/**
 * The current memories among `ids` with their text, and their keyword rows written or rewritten
 * (upsertMemoryRowsSql): the start of both statements below. The memories are already locked
 * against a concurrent supersede or delete (memoriesByShardGroup, FOR NO KEY UPDATE, in this
 * transaction), so this statement's snapshot, taken after the lock, reads them as they stay. A
 * second lock here (FOR KEY SHARE in the CTE) added nothing, and on Citus, which runs such a CTE
 * as a subplan, its rows came back unreadable ("missing data for column group_key"). `vectors` adds the column `vec` from a third array; `groups`
 * is the parameter holding the memories' groups, which every row is found by.
 */
function memoryKeywordRowsSql(vectors: boolean, groups: string): string {
  return `source AS MATERIALIZED (
       SELECT m.id, m.group_key, m.conversation_id, m.user_id, m.occurred_at, m.message_ids, t.body${vectors ? ', t.vec' : ''}
       FROM unnest($1::text[], $2::text[]${vectors ? ', $3::text[]) AS t(id, body, vec)' : ') AS t(id, body)'}
       ${joinCurrentMemory('m', groups, 't.id')}
     ),
     ${upsertMemoryRowsSql(keywordVectorSql)}`;
}

/** How a memory write runs: `at` stamps a replaced vector; `shardGroups` splits it (memoriesByShardGroup). */
export interface MemoryWriteOptions {
  readonly at?: Date;
  readonly shardGroups?: ShardGroupsOf | undefined;
}

/**
 * Indexes episodic memories, the keyword row and the vector row of each in one statement; a memory
 * superseded or deleted meanwhile is skipped. In its own transaction, or in the caller's.
 */
export async function indexMemories(
  store: Queryable | Store,
  model: string,
  items: readonly MemoryToIndex[],
  options: MemoryWriteOptions = {},
): Promise<number> {
  const at = options.at ?? new Date();
  return memoriesByShardGroup(store, items, options.shardGroups, async (q, run, groups) => {
    const { rows } = await q.query<{ n: number; zeroed: ZeroedFrequencies }>(
      `WITH ${memoryKeywordRowsSql(true, '$6')},
       written AS (
         INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model)
         SELECT s.group_key, 'episodic_memory', s.id, s.conversation_id, s.user_id, s.occurred_at, s.vec::vector, $4
         FROM source s  -- each has its keyword row from items: the upsert there writes every row of source
         ON CONFLICT (group_key, kind, item_id) DO UPDATE SET embedding = EXCLUDED.embedding,
           embedding_model = EXCLUDED.embedding_model, indexed_at = $5::timestamptz
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM written)::int AS n, ${zeroedOf('memory_delta')} AS zeroed`,
      [
        run.map((i) => i.memoryId),
        run.map((i) => i.text),
        run.map((i) => vectorLiteral(i.embedding)),
        model,
        at,
        groups,
      ],
    );
    await dropZeroedFrequencies(q, rows[0]?.zeroed ?? null);
    return rows[0]?.n ?? 0;
  });
}

/**
 * The keyword rows of memories whose vectors could not be made, and their places on the queue
 * (search_unembedded): they are found by their words at once, and the sweep tries their vectors
 * again with a backoff. Returns how many were queued. In its own transaction, or in the caller's.
 */
export async function queueMemoriesToEmbed(
  store: Queryable | Store,
  items: ReadonlyArray<Omit<MemoryToIndex, 'embedding'>>,
  options: Pick<MemoryWriteOptions, 'shardGroups'> = {},
): Promise<number> {
  return memoriesByShardGroup(store, items, options.shardGroups, async (q, run, groups) => {
    const { rows } = await q.query<{ n: number; zeroed: ZeroedFrequencies }>(
      `WITH ${memoryKeywordRowsSql(false, '$3')},
       queued AS (
         INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, 'episodic_memory', item_id FROM items
         ON CONFLICT (group_key, kind, item_id) DO NOTHING
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM queued)::int AS n, ${zeroedOf('memory_delta')} AS zeroed`,
      [run.map((i) => i.memoryId), run.map((i) => i.text), groups],
    );
    await dropZeroedFrequencies(q, rows[0]?.zeroed ?? null);
    return rows[0]?.n ?? 0;
  });
}

/**
 * Two writers of one memory's keyword row (the event's indexing and the sweep's, a redelivery)
 * each count the change from the row they read before writing. Read in one statement, both would
 * read the row as it was before either (the snapshot is the statement's), and both would count
 * the same words in. So the memories are locked first, in id order, and the statement that reads
 * the prior row and writes the new one runs after the lock, in a snapshot that sees the other
 * writer's committed row.
 *
 * The lock and the write name the memories' groups, their shard column. Citus locks rows of one
 * shard group a statement, so with `shardGroups` (a layout that splits) the memories go in runs,
 * one per shard group, each locked and written in a transaction of its own (or, in the caller's
 * transaction, one after the other). Without it (the plain layout) they are one run, as before.
 * A memory's group never changes, so it is read before the lock; one that is gone is skipped.
 */
async function memoriesByShardGroup<T extends { readonly memoryId: string }>(
  store: Queryable | Store,
  items: readonly T[],
  shardGroups: ShardGroupsOf | undefined,
  write: (tx: Queryable, run: readonly T[], groups: string[]) => Promise<number>,
): Promise<number> {
  if (items.length === 0) return 0;
  const groupOf = await groupsOfMemories(store, [...new Set(items.map((i) => i.memoryId))]);
  if (groupOf.size === 0) return 0;
  const stored = items.filter((i) => groupOf.has(i.memoryId));
  let n = 0;
  for (const run of await runsByShardGroup(store, stored, (i) => groupOf.get(i.memoryId)!, shardGroups)) {
    const groups = [...new Set(run.map((i) => groupOf.get(i.memoryId)!))];
    const ids = [...new Set(run.map((i) => i.memoryId))];
    n += await inTransaction(store, async (tx) => {
      await lockMemories(tx, groups, ids);
      return write(tx, run, groups);
    });
  }
  return n;
}

const inTransaction = <T>(q: Queryable | Store, work: (tx: Queryable) => Promise<T>) =>
  'transaction' in q ? q.transaction(work) : work(q);

/** A search row the sweep embeds: a message's by its key (with its context), a memory's by its content. */
export interface SearchItemToEmbed {
  readonly group_key: string;
  readonly kind: SearchKind;
  readonly item_id: string;
  readonly content: string;
  readonly conversation_id: string;
  /** A message's row: [its message id]. */
  readonly message_ids: string[];
}

/**
 * Items whose vector was made by another model: the re-embedding backlog, each model's oldest
 * first. An item without a vector yet is left to its stored event (or to unembeddedItems), which
 * the indexer is about to (or already does) embed: taken here as well, a backlog of new messages
 * would be embedded twice. Items on the queue are left to it too: the backlog is read in order, so
 * an item that fails every time would otherwise head it for good.
 *
 * The other models are the two ranges of search_vectors_model_idx on either side of `model`
 * (migration 0044), each read in (model, indexed_at) order: a round reads about what it returns,
 * and with no backlog two index probes. "embedding_model <> model" was a read of the whole table.
 */
export async function staleVectors(q: Queryable, model: string, limit: number): Promise<SearchItemToEmbed[]> {
  const side = (range: '<' | '>') =>
    `(SELECT v.group_key, v.kind, v.item_id, v.embedding_model, v.indexed_at FROM search_vectors v
       WHERE v.embedding_model ${range} $1
         -- one the sweep could not embed waits on the queue, with its backoff (queueItemsToEmbed)
         AND NOT EXISTS (SELECT 1 FROM search_unembedded u
                          WHERE u.group_key = v.group_key AND u.kind = v.kind AND u.item_id = v.item_id)
       ORDER BY v.embedding_model, v.indexed_at LIMIT $2)`;
  const { rows } = await q.query<SearchItemToEmbed>(
    `SELECT s.group_key, s.kind, s.item_id, s.content, s.conversation_id, s.message_ids
     FROM (${side('<')} UNION ALL ${side('>')}) v
     JOIN search_items s ON s.group_key = v.group_key AND s.kind = v.kind AND s.item_id = v.item_id
     ORDER BY v.embedding_model, v.indexed_at LIMIT $2`,
    [model, limit],
  );
  return rows;
}

/** A search item's new vector (replaceVectors). */
export interface VectorToReplace {
  readonly groupKey: string;
  readonly kind: SearchKind;
  readonly itemId: string;
  readonly embedding: ArrayLike<number>;
}

/**
 * Replaces the vectors of items (the re-embedding of the backlog, and memories the sweep embeds);
 * an item whose search row is gone is skipped, and its row is not deleted until this commits. With
 * `shardGroups` (a layout that splits) the items go per shard group, each in a transaction that
 * locks their search rows, then writes with no locking clause, as writeMessageVectorsByShardGroup
 * does and for the same reasons; without, one statement.
 */
export async function replaceVectors(
  store: Queryable | Store,
  model: string,
  items: readonly VectorToReplace[],
  options: MemoryWriteOptions = {},
): Promise<void> {
  const at = options.at ?? new Date();
  if (options.shardGroups === undefined) return vectorReplace(store, model, items, at, 'FOR KEY SHARE OF s');
  for (const run of await runsByShardGroup(store, items, (i) => i.groupKey, options.shardGroups))
    await inTransaction(store, async (tx) => {
      await tx.query(
        `SELECT 1 FROM search_items s
          WHERE s.group_key = ANY($1::text[])
            AND (s.group_key, s.kind, s.item_id) IN (SELECT g, kind, id FROM unnest($1::text[], $2::text[], $3::text[]) AS t(g, kind, id))
          ORDER BY s.kind, s.item_id FOR KEY SHARE`,
        [run.map((i) => i.groupKey), run.map((i) => i.kind), run.map((i) => i.itemId)],
      );
      await vectorReplace(tx, model, run, at, '');
    });
}

async function vectorReplace(
  q: Queryable,
  model: string,
  items: readonly VectorToReplace[],
  at: Date,
  lock: 'FOR KEY SHARE OF s' | '',
): Promise<void> {
  if (items.length === 0) return;
  await q.query(
    `WITH written AS (
       INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, audience, embedding,
                                   embedding_model)
       SELECT s.group_key, s.kind, s.item_id, s.conversation_id, s.user_id, s.occurred_at, s.audience, t.vec::vector, $4
       FROM unnest($1::text[], $2::text[], $3::text[], $6::text[]) AS t(kind, id, vec, g)
       JOIN search_items s ON s.group_key = t.g AND s.kind = t.kind AND s.item_id = t.id
       ${lock}
       ON CONFLICT (group_key, kind, item_id) DO UPDATE SET embedding = EXCLUDED.embedding,
         embedding_model = EXCLUDED.embedding_model, context_item_id = NULL, indexed_at = $5::timestamptz
       RETURNING group_key, kind, item_id
     )
     DELETE FROM search_unembedded u USING written w
      WHERE u.group_key = w.group_key AND u.kind = w.kind AND u.item_id = w.item_id`,
    [
      items.map((i) => i.kind),
      items.map((i) => i.itemId),
      items.map((i) => vectorLiteral(i.embedding)),
      model,
      at,
      items.map((i) => i.groupKey),
    ],
  );
}

/**
 * The HNSW index of one model's vectors: partial (its rows only) over the vectors cast to the
 * model's dimension, because an index needs one dimension and the column holds any. Created
 * once per model; searches that order by the same expression under the same predicate use it.
 *
 * Every indexer replica calls this as it starts, and replicas start together. IF NOT EXISTS is no
 * guard between them: both look, neither finds it, and the second to insert the catalog row fails
 * (duplicate key in pg_class), which stopped that replica's start in the scale-out test. So
 * creators take turns under a lock named after the index, and the second finds the first's.
 */
export async function ensureVectorIndex(store: Store, model: string, dimension: number): Promise<string> {
  const name = vectorIndexName(model, dimension);
  await store.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`vector-index:${name}`]);
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${name} ON search_vectors
       USING hnsw ((embedding::vector(${dimension})) vector_cosine_ops)
       WHERE embedding_model = ${sqlString(model)}`,
    );
  });
  return name;
}

export function vectorIndexName(model: string, dimension: number): string {
  return `search_vectors_hnsw_${createHash('sha256').update(`${model}\u0000${dimension}`).digest('hex').slice(0, 16)}`;
}

/** A string as an SQL literal (standard_conforming_strings is on in every Postgres we run). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
