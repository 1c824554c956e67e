/**
 * bench:scale's bulk load: grows the database between steps by statements run in PostgreSQL,
 * writing exactly what the converter's append statement (appendMessages in @memstream/store) and the
 * indexer write for a stored message, so the measured services find the store as they would have
 * left it: the conversation's row with `next_seq` moved past its messages (gapless from 0), the
 * message, its keyword search row (whose insert trigger queues the keyword statistics, folded here
 * as the converter folds them) and its vector row under the embedder's model.
 *
 * Why not the real pipeline: at the producer path's measured rates on two shared cores, 10 million
 * messages would take hours of Kafka and converter time whose cost the measured steps report
 * anyway; generating rows in the server costs a fraction of that. Why not COPY: the rows are made
 * from a few thousand turns already in the database, so no row crosses the wire at all.
 *
 * Vectors are precomputed: each turn's text is embedded once by the hash embedder in the bench,
 * and a message's vector is its turn's plus a quarter of another's, so no two of millions of
 * vectors are equal (an HNSW graph over thousands of copies of one point is not a real one).
 *
 * Message `i` of the load belongs to conversation `i / perConversation` at position
 * `i % perConversation`; conversation `c`'s speakers are `a<c/10>` (a person with ten
 * conversations) and `b<c>`.
 */
import os from 'node:os';
import type pg from 'pg';
import type { Embedder } from '@memstream/embedding';
import type { Turns } from './scale-workload.js';
import { foldKeywordCounts, insertSearchRowsSql } from '@memstream/store';
import { asStore } from './database.js';

export const RAW_TABLE = 'bench_scale_raw';
const TURNS_TABLE = 'bench_scale_turns';
const MESSAGE_COLUMNS =
  'id, conversation_id, group_key, seq, message_id, sender_id, sender_name, role, content, created_at, stored_at, refer_list, metadata, source_api';

export interface LoadFigures {
  readonly messages: number;
  readonly elapsed_s: number;
  readonly messages_per_s: number;
  /** Seconds spent on each part: conversations and messages with their keyword rows, vectors (HNSW inserts), the raw table's copy, keyword folding. */
  readonly parts_s: Record<string, number>;
  /** The HNSW build after the load: over how many vectors, with how much memory, and whether it went on disk. */
  readonly hnsw_build: { vectors: number; memory_mib: number; fits: boolean; on_disk: boolean };
}

/** The turns and their vectors, in a table the load statements draw from; and the raw baseline's table. */
export async function prepareLoad(client: pg.Client, turns: Turns, embedder: Embedder): Promise<void> {
  const vectors = await embedder.embed(turns.texts, 'document');
  const literal = (v: Float32Array, scale: number) => `[${Array.from(v, (x) => x * scale).join(',')}]`;
  await client.query(
    `CREATE TABLE ${TURNS_TABLE} (idx integer PRIMARY KEY, body text NOT NULL, embedding vector NOT NULL, nudge vector NOT NULL)`,
  );
  await client.query(
    `INSERT INTO ${TURNS_TABLE} SELECT i - 1, b, v::vector, n::vector FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(b, v, n, i)`,
    [turns.texts, vectors.map((v) => literal(v, 1)), vectors.map((v) => literal(v, 0.25))],
  );
  // The least any design must store: rows shaped like `messages`, with every one of its indexes.
  await client.query(`CREATE TABLE ${RAW_TABLE} (LIKE messages INCLUDING ALL)`);
}

/**
 * Loads messages `from` up to `to` (exclusive) in chunks of `chunk`, one transaction each, so the
 * store's invariants hold at every commit. The raw baseline's table gets the same rows, so both
 * sides of each comparison write into tables of the same size.
 */
export async function growTo(
  client: pg.Client,
  options: { from: number; to: number; perConversation: number; chunk: number; model: string; dimension: number },
  progress: (line: string) => void,
): Promise<LoadFigures> {
  const { from, to, perConversation: k, chunk, model } = options;
  const started = performance.now();
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${TURNS_TABLE}`);
  const turns = rows[0]!.n;
  const parts: Record<string, number> = { messages: 0, vectors: 0, vector_index: 0, raw_copy: 0, keyword_fold: 0 };
  const timed = async <T>(part: string, run: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await run();
    } finally {
      parts[part]! += (performance.now() - t0) / 1000;
    }
  };
  // Inserting vectors one by one into an HNSW graph ran at a few hundred a second here; building
  // the graph again over all of them costs a fraction of that (the same index in the end).
  const hnsw = await timed('vector_index', () => dropVectorIndexes(client));
  for (let lo = from; lo < to; lo += chunk) {
    const hi = Math.min(to, lo + chunk);
    await client.query('BEGIN');
    try {
      await loadChunk(client, { lo, hi, k, turns, model }, timed);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
    progress(`loaded ${hi.toLocaleString('en-US')} of ${to.toLocaleString('en-US')} messages`);
  }
  // What the statements left queued for the keyword statistics, folded as the converter's loop does.
  // The converter's own fold loop runs beside this one; a fold gives up on a row the other holds
  // (lock_timeout 200 ms) and is simply run again.
  const fold = async () => {
    try {
      return await foldKeywordCounts(asStore(client), 20_000);
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') return -1;
      throw err;
    }
  };
  await timed('keyword_fold', async () => {
    while ((await fold()) !== 0);
  });
  const graph = await timed('vector_index', async () => {
    const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM search_vectors');
    const memory = hnswBuildMemory(counted[0]!.n, options.dimension);
    // pgvector says in a NOTICE when the graph outgrew the memory and it goes on building on disk.
    const notices: string[] = [];
    const onNotice = (n: { message?: string }) => void notices.push(n.message ?? '');
    client.on('notice', onNotice);
    try {
      await client.query(`SET maintenance_work_mem = '${memory.mib}MB'`);
      for (const def of hnsw) await client.query(def);
      await client.query('RESET maintenance_work_mem');
    } finally {
      client.off('notice', onNotice);
    }
    return {
      vectors: counted[0]!.n,
      memory_mib: memory.mib,
      fits: memory.fits,
      on_disk: notices.some((m) => /no longer fits/.test(m)),
    };
  });
  await client.query(`ANALYZE conversations, messages, search_items, search_vectors, ${RAW_TABLE}`);
  const elapsedMs = performance.now() - started;
  return {
    messages: to - from,
    elapsed_s: Math.round(elapsedMs / 100) / 10,
    messages_per_s: elapsedMs > 0 ? Math.round(((to - from) * 1000) / elapsedMs) : 0,
    parts_s: Object.fromEntries(Object.entries(parts).map(([p, sec]) => [p, Math.round(sec * 10) / 10])),
    hnsw_build: graph,
  };
}

/**
 * The memory an HNSW build gets: enough for the whole graph, as far as the machine allows. Past
 * its `maintenance_work_mem` pgvector goes on building on disk, inserting the rest one by one (a
 * few hundred vectors a second here), which turns minutes into hours. An element of the graph
 * holds its vector (4 bytes a dimension and a header) and, with the default m = 16, 32 neighbours
 * on the bottom layer and a few above (about 700 bytes with its own header); a tenth more is
 * kept for what that estimate misses. At most 60% of the machine's memory, the rest being the
 * services', the broker's and the page cache's.
 */
export function hnswBuildMemory(vectors: number, dimension: number, totalBytes = os.totalmem()) {
  const need = Math.ceil((vectors * (dimension * 4 + 8 + 700) * 1.1) / 2 ** 20);
  const cap = Math.floor((totalBytes * 0.6) / 2 ** 20);
  return { mib: Math.max(64, Math.min(need, cap)), fits: need <= cap };
}

/** Drops the HNSW indexes of search_vectors (the indexer made its model's) and returns how to make them again. */
async function dropVectorIndexes(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'search_vectors' AND indexdef LIKE '%USING hnsw%'`,
  );
  for (const { name } of rows) await client.query(`DROP INDEX ${name}`);
  return rows.map((r) => r.def);
}

async function loadChunk(
  client: pg.Client,
  c: { lo: number; hi: number; k: number; turns: number; model: string },
  timed: <T>(part: string, run: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const params = [c.lo, c.hi - 1, c.k];
  // In id order, as the append statement locks them; `next_seq` moves by what this chunk adds.
  await timed('messages', () =>
    client.query(
      `INSERT INTO conversations AS cv (id, group_key, source_api, next_seq, created_at, updated_at)
     SELECT 'scale-g' || (i / $3), 'scale-g' || (i / $3), 'evermemos', count(*), now(), now()
       FROM generate_series($1::bigint, $2::bigint) i GROUP BY i / $3 ORDER BY 1
     ON CONFLICT (id, group_key) DO UPDATE SET next_seq = cv.next_seq + EXCLUDED.next_seq, updated_at = now()`,
      params,
    ),
  );
  // The message and its keyword row in one statement, as the append statement writes them (the
  // search text is messageSearchText's: the speaker's name, then what was said).
  const { rows } = await timed('messages', () =>
    client.query<{ lo: string; hi: string }>(
      `WITH inserted AS (
       INSERT INTO messages (conversation_id, group_key, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)
       SELECT 'scale-g' || (i / $3), 'scale-g' || (i / $3), i % $3, 'm' || i, s.sender, s.sender, 'user', t.body,
              timestamptz '2025-01-01' + (i / $3) * interval '1 hour' + (i % $3) * interval '1 minute', 'evermemos'
         FROM generate_series($1::bigint, $2::bigint) i
         JOIN ${TURNS_TABLE} t ON t.idx = (hashint8(i) & 2147483647) % $4
         CROSS JOIN LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 'a' || (i / $3 / 10) ELSE 'b' || (i / $3) END AS sender) s
       RETURNING id, conversation_id, message_id, sender_id, sender_name, content, created_at, audience, group_key
     ), ${insertSearchRowsSql(
       'searchable',
       'message',
       `SELECT group_key, 'message', id::text, conversation_id, sender_id, sender_name || ': ' || content, created_at,
               ARRAY[message_id], to_tsvector('english', left(sender_name || ': ' || content, 50000)), audience
          FROM inserted`,
     )}
     SELECT min(id) AS lo, max(id) AS hi FROM inserted`,
      [...params, c.turns],
    ),
  );
  const ids = [rows[0]!.lo, rows[0]!.hi];
  // The indexer's row: the turn's vector nudged by another turn's (see the header).
  await timed('vectors', () =>
    client.query(
      `INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, audience, embedding,
                                  embedding_model)
     SELECT m.group_key, 'message', m.id::text, m.conversation_id, m.sender_id, m.created_at, m.audience,
            t1.embedding + t2.nudge, $3
       FROM messages m
       JOIN ${TURNS_TABLE} t1 ON t1.idx = (hashint8(substr(m.message_id, 2)::bigint) & 2147483647) % $4
       JOIN ${TURNS_TABLE} t2 ON t2.idx = (hashint8(substr(m.message_id, 2)::bigint + 7919) & 2147483647) % $4
      WHERE m.id BETWEEN $1 AND $2`,
      [...ids, c.model, c.turns],
    ),
  );
  await timed('raw_copy', () =>
    client.query(
      `INSERT INTO ${RAW_TABLE} (${MESSAGE_COLUMNS}) SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id BETWEEN $1 AND $2`,
      ids,
    ),
  );
}

export interface Invariants {
  /** Conversations whose `next_seq`, message count and highest seq + 1 are not one number. */
  readonly gapped_conversations: number;
  readonly messages: number;
  readonly search_rows: number;
  readonly vector_rows: number;
  readonly keyword_pending: number;
  readonly ok: boolean;
}

/** What the store promises after every commit, checked over the whole database. */
export async function checkInvariants(client: pg.Client): Promise<Invariants> {
  const { rows } = await client.query<Omit<Invariants, 'ok'>>(
    `SELECT (SELECT count(*)::int FROM conversations c
               LEFT JOIN (SELECT conversation_id, count(*) AS n, max(seq) AS top FROM messages GROUP BY 1) m ON m.conversation_id = c.id
              WHERE c.next_seq <> COALESCE(m.n, 0) OR COALESCE(m.top + 1, 0) <> COALESCE(m.n, 0)) AS gapped_conversations,
            (SELECT count(*)::int FROM messages) AS messages,
            (SELECT count(*)::int FROM search_items WHERE kind = 'message') AS search_rows,
            (SELECT count(*)::int FROM search_vectors WHERE kind = 'message') AS vector_rows,
            (SELECT count(*)::int FROM search_keyword_pending) AS keyword_pending`,
  );
  const r = rows[0]!;
  return { ...r, ok: r.gapped_conversations === 0 && r.search_rows === r.messages };
}
