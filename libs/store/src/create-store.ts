import { join } from 'node:path';
import type { Logger } from '@memstream/logging';
import type { Store } from './store.js';
import { PgStore } from './pg-store.js';
import { PgliteStore } from './pglite-store.js';
import { migrate } from './migrate.js';

export interface StoreSettings {
  readonly DATABASE_URL: string | undefined;
  readonly DATABASE_POOL_MAX: number;
  readonly DATABASE_STATEMENT_TIMEOUT_MS: number;
  readonly DATA_DIR: string;
}

/**
 * PostgreSQL when DATABASE_URL is set, otherwise PGlite under DATA_DIR/pglite (the embedded
 * mode). Migrations run before the store is handed out, so no caller sees an old schema.
 */
export async function openStore(settings: StoreSettings, log: Logger): Promise<Store> {
  const storeLog = log.child({ component: 'store' });
  const store: Store = settings.DATABASE_URL
    ? new PgStore({
        connectionString: settings.DATABASE_URL,
        maxConnections: settings.DATABASE_POOL_MAX,
        statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
        log: storeLog,
      })
    : await PgliteStore.open(join(settings.DATA_DIR, 'pglite'));
  try {
    await migrate(store, storeLog);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
