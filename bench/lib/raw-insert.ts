import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@memstream/logging';
import { openPglite, PgStore, type Store } from '@memstream/store';
import type { CopyRow } from './database.js';

/**
 * Which store the embedded mode keeps under a DATA_DIR. The native PostgreSQL child listens on a
 * Unix socket (embeddedPostgresUrl says where); PGlite keeps its files in `<DATA_DIR>/pglite`.
 */
export type EmbeddedStoreKind = 'native' | 'pglite' | 'none';

export function embeddedStoreOf(dataDir: string): EmbeddedStoreKind {
  if (existsSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'))) return 'native';
  if (existsSync(join(dataDir, 'pglite'))) return 'pglite';
  return 'none';
}

export interface InsertFigure {
  readonly rows: number;
  readonly elapsedMs: number;
  readonly rowsPerS: number;
}

export interface RawCeiling {
  readonly store: string;
  /** One row per INSERT, autocommit, `concurrency` clients at once: what a held write costs the store at least. */
  readonly single: InsertFigure;
  /** Multi-row INSERTs of `batch` rows, one after another: what the store takes when writes are batched. */
  readonly multi: InsertFigure & { readonly batch: number };
}

export interface RawOptions {
  readonly rows: number;
  readonly concurrency: number;
  readonly batch: number;
  readonly rowAt: (i: number) => CopyRow;
}

/**
 * The native store at `url` (embeddedPostgresUrl(<DATA_DIR>/postgres) from @memstream/embedded-postgres), while the server that started it runs: it
 * is reachable only then. 16
 * clients are 16 connections of one pool, as 16 services' connections would be.
 */
export async function nativeCeiling(url: string, options: RawOptions): Promise<RawCeiling> {
  const store = new PgStore({
    connectionString: url,
    maxConnections: options.concurrency,
    statementTimeoutMs: 60_000,
    log: createLogger({ service: 'bench-embedded', level: 'warn' }),
  });
  try {
    return { store: `native PostgreSQL (${url})`, ...(await measure(store, options)) };
  } finally {
    await store.close();
  }
}

/**
 * PGlite runs inside the server's process and opens its folder exclusively, so the benchmark opens
 * a copy of the folder once the server has stopped. Its "clients" share PGlite's one connection,
 * which runs a statement at a time: the same queue the server's own queries wait in.
 */
export async function pgliteCeiling(dataDir: string, options: RawOptions): Promise<RawCeiling> {
  const copy = await mkdtemp(join(tmpdir(), 'memstream-bench-pglite-'));
  try {
    await cp(join(dataDir, 'pglite'), join(copy, 'pglite'), { recursive: true });
    const store = await openPglite(join(copy, 'pglite'));
    try {
      return {
        store: 'PGlite (a copy of the data folder, opened by the benchmark after the server stopped)',
        ...(await measure(store, options)),
      };
    } finally {
      await store.close();
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

const SINGLE = 'bench_raw_single';
const MULTI = 'bench_raw_multi';
const COLUMNS = '(conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)';

/**
 * Scratch tables shaped like `messages` (its columns, defaults, NOT NULLs, primary key and unique
 * index: LIKE copies all but the foreign key), filled, then dropped: on the native store they sit
 * beside the live data.
 */
async function measure(store: Store, options: RawOptions): Promise<Omit<RawCeiling, 'store'>> {
  for (const table of [SINGLE, MULTI]) {
    await store.exec(
      `DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
    );
  }
  try {
    const single = await singleRowInserts(store, options);
    const multi = await multiRowInserts(store, options);
    return { single, multi: { ...multi, batch: options.batch } };
  } finally {
    await store.exec(`DROP TABLE IF EXISTS ${SINGLE}; DROP TABLE IF EXISTS ${MULTI}`);
  }
}

async function singleRowInserts(store: Store, { rows, concurrency, rowAt }: RawOptions): Promise<InsertFigure> {
  let next = 0;
  const client = async () => {
    for (let i = next++; i < rows; i = next++) {
      const r = rowAt(i);
      await store.query(`INSERT INTO ${SINGLE} ${COLUMNS} VALUES ($1, $2, $3, $4, $4, 'user', $5, $6, 'evermemos')`, [
        r.conversationId,
        r.seq,
        r.messageId,
        r.sender,
        r.content,
        r.createdAt,
      ]);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  return figure(await countRows(store, SINGLE), performance.now() - started);
}

async function multiRowInserts(store: Store, { rows, batch, rowAt }: RawOptions): Promise<InsertFigure> {
  const started = performance.now();
  for (let from = 0; from < rows; from += batch) {
    const chunk = Array.from({ length: Math.min(batch, rows - from) }, (_, k) => rowAt(from + k));
    // One array per column: a statement of six parameters whatever the batch size.
    await store.query(
      `INSERT INTO ${MULTI} ${COLUMNS}
       SELECT c, s, m, u, u, 'user', t, a, 'evermemos' FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS x(c, s, m, u, t, a)`,
      [
        chunk.map((r) => r.conversationId),
        chunk.map((r) => r.seq),
        chunk.map((r) => r.messageId),
        chunk.map((r) => r.sender),
        chunk.map((r) => r.content),
        chunk.map((r) => r.createdAt),
      ],
    );
  }
  return figure(await countRows(store, MULTI), performance.now() - started);
}

async function countRows(store: Store, table: string): Promise<number> {
  const { rows } = await store.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

function figure(rows: number, elapsedMs: number): InsertFigure {
  return {
    rows,
    elapsedMs: Math.round(elapsedMs),
    rowsPerS: elapsedMs > 0 ? Math.round((rows * 1000) / elapsedMs) : 0,
  };
}
