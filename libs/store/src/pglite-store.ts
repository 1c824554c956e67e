import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Queryable, QueryResult, Store } from './store.js';

/**
 * Embedded Postgres (WASM) with pgvector, persisted under a folder. One connection: PGlite runs
 * one statement at a time and queues the rest, so a transaction holds it exclusively.
 */
export class PgliteStore implements Store {
  readonly kind = 'pglite' as const;

  private constructor(private readonly db: PGlite) {}

  /**
   * `dataDir` undefined keeps the database in memory (tests). `image`, a tarball `dump()` made,
   * starts it as a copy of that database instead of an empty cluster.
   */
  static async open(dataDir: string | undefined, image?: Blob): Promise<PgliteStore> {
    if (dataDir) await mkdir(dataDir, { recursive: true });
    const db = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(image ? { loadDataDir: image } : {}),
      extensions: { vector },
      parsers: { [types.INT8]: (v: string) => Number(v) },
    });
    return new PgliteStore(db);
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const result = await this.db.query<R>(sql, params as unknown[]);
    return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (t) =>
      fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          const result = await t.query<R>(sql, params as unknown[]);
          return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
        },
        exec: async (sql: string) => {
          await t.exec(sql);
        },
      }),
    );
  }

  /** The whole data directory as a gzipped tarball, for `open` to start copies from. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('gzip');
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
