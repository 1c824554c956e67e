import { join } from 'node:path';
import type { Logger } from '@memstream/logging';
import type { Store } from './store.js';
import { PgStore } from './pg-store.js';
import { migrate } from './migrate.js';
import { openPglite } from './open-pglite.js';
import { openEmbeddedPostgresStore } from './embedded-postgres/embedded-store.js';

export interface StoreSettings {
  readonly DATABASE_URL: string | undefined;
  readonly DATABASE_POOL_MAX: number;
  readonly DATABASE_STATEMENT_TIMEOUT_MS: number;
  readonly DATA_DIR: string;
  /** The embedded store's settings (see platformEnv); a process that requires DATABASE_URL leaves them out. */
  readonly EMBEDDED_STORE?: 'postgres' | 'pglite';
  readonly EMBEDDED_POSTGRES_OS_USER?: string;
  readonly MEMSTREAM_POSTGRES_DIR?: string | undefined;
}

/**
 * PostgreSQL at DATABASE_URL when it is set. Otherwise the embedded mode's store under DATA_DIR:
 * a PostgreSQL server this process starts and owns (DATA_DIR/postgres), or, when asked for,
 * PGlite (DATA_DIR/pglite), loaded only then: its WASM heap is a quarter of a gigabyte.
 * Migrations run before the store is handed out, so no caller sees an old schema.
 */
export async function openStore(settings: StoreSettings, log: Logger): Promise<Store> {
  const storeLog = log.child({ component: 'store' });
  const store = await connect(settings, storeLog);
  try {
    await migrate(store, storeLog);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

async function connect(settings: StoreSettings, log: Logger): Promise<Store> {
  const pool = { maxConnections: settings.DATABASE_POOL_MAX, statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS, log };
  if (settings.DATABASE_URL) return new PgStore({ connectionString: settings.DATABASE_URL, ...pool });
  if (settings.EMBEDDED_STORE !== 'pglite') {
    return openEmbeddedPostgresStore(
      { root: join(settings.DATA_DIR, 'postgres'), osUser: settings.EMBEDDED_POSTGRES_OS_USER ?? 'memstream', binariesDir: settings.MEMSTREAM_POSTGRES_DIR },
      pool,
    );
  }
  log.warn('EMBEDDED_STORE=pglite: PGlite does not flush its files, so acknowledged writes can be lost if the process dies');
  return openPglite(join(settings.DATA_DIR, 'pglite'));
}
