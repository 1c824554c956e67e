import { join } from 'node:path';
import type { Logger } from '@memstream/logging';
import type { Store } from './store.js';
import { PgStore, type PgStoreOptions } from './pg-store.js';
import type { LayoutSettings } from './layout/store-layout.js';
import { migrate } from './migrate.js';
import { openPglite } from './open-pglite.js';
import { distributeOnCitus } from './distribute-citus.js';

export interface StoreSettings extends Partial<LayoutSettings> {
  readonly DATABASE_URL: string | undefined;
  /** Unset: see poolSizeOf. */
  readonly DATABASE_POOL_MAX?: number | undefined;
  readonly DATABASE_STATEMENT_TIMEOUT_MS: number;
  readonly DATA_DIR: string;
  /** The embedded store's settings (see platformEnv); a process that requires DATABASE_URL leaves them out. */
  readonly EMBEDDED_STORE?: 'postgres' | 'pglite';
  /** `citus`: lay the tables out on the Citus coordinator at DATABASE_URL after migrating (docs/store.md). */
  readonly STORE_DISTRIBUTION?: 'none' | 'citus';
}

/** A pool's settings, for a store whose server someone else starts (the embedded mode's). */
export type PoolOptions = Omit<PgStoreOptions, 'connectionString' | 'onConnect'>;

/** Opens a store on a PostgreSQL server the caller starts and owns: the embedded mode's, under DATA_DIR. */
export type OpenEmbeddedServer = (pool: PoolOptions) => Promise<Store>;

/**
 * PostgreSQL at DATABASE_URL when it is set. Otherwise the embedded mode's store under DATA_DIR:
 * a PostgreSQL server the caller starts and owns (`embedded`, which only the embedded mode passes:
 * @memstream/embedded-postgres), or, when asked for, PGlite (DATA_DIR/pglite), loaded only then:
 * its WASM heap is a quarter of a gigabyte. Migrations run before the store is handed out, so no
 * caller sees an old schema, and then STORE_LAYOUT's layout (docs/store.md), in both modes. With
 * STORE_DISTRIBUTION=citus the tables are laid out on Citus before it too, so no write lands in a
 * table Citus does not manage yet.
 */
export async function openStore(settings: StoreSettings, log: Logger, embedded?: OpenEmbeddedServer): Promise<Store> {
  const citus = settings.STORE_DISTRIBUTION === 'citus';
  if (citus && !settings.DATABASE_URL) {
    throw new Error(
      'STORE_DISTRIBUTION=citus needs DATABASE_URL set to a Citus coordinator: the embedded store (PostgreSQL or PGlite) is one node',
    );
  }
  if (citus && settings.STORE_LAYOUT === 'partitioned') {
    throw new Error(
      'STORE_LAYOUT=partitioned and STORE_DISTRIBUTION=citus are two layouts of the same tables: set one of them',
    );
  }
  const storeLog = log.child({ component: 'store' });
  const store = await connect(settings, storeLog, embedded);
  try {
    await migrate(store, storeLog, undefined, {
      STORE_LAYOUT: settings.STORE_LAYOUT ?? 'plain',
      STORE_LAYOUT_KEEP_PLAIN: settings.STORE_LAYOUT_KEEP_PLAIN ?? [],
    });
    if (citus) await distributeOnCitus(store, storeLog);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/**
 * The pool's size: DATABASE_POOL_MAX, or by default 10 connections to a server of its own
 * (DATABASE_URL) and 6 to the embedded one. The embedded server runs on the same cores as this one
 * process, which never has more than a few statements worth running at once, and each connection
 * is a server process: held EverMemOS writes (16 in flight) ran at least as fast with 5 or 6 as
 * with 10, with four or five fewer processes (docs/performance.md). The embedded mode's background
 * pool comes on top (@memstream/embedded-postgres).
 */
export function poolSizeOf(settings: Pick<StoreSettings, 'DATABASE_URL' | 'DATABASE_POOL_MAX'>): number {
  return settings.DATABASE_POOL_MAX ?? (settings.DATABASE_URL ? 10 : 6);
}

async function connect(settings: StoreSettings, log: Logger, embedded: OpenEmbeddedServer | undefined): Promise<Store> {
  const pool: PoolOptions = {
    maxConnections: poolSizeOf(settings),
    statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
    log,
  };
  if (settings.DATABASE_URL) {
    const genericPlans = settings.STORE_DISTRIBUTION !== 'citus';
    return new PgStore({ connectionString: settings.DATABASE_URL, ...pool, genericPlans });
  }
  if (settings.EMBEDDED_STORE !== 'pglite') {
    if (embedded) return embedded(pool);
    // A distributed process with a server of its own would share no data with the others.
    throw new Error(
      'DATABASE_URL is not set: set it to a PostgreSQL with pgvector (only the embedded mode, `npm start`, starts a PostgreSQL of its own), or EMBEDDED_STORE=pglite',
    );
  }
  log.warn(
    'EMBEDDED_STORE=pglite: PGlite does not flush its files, so acknowledged writes can be lost if the process dies',
  );
  return openPglite(join(settings.DATA_DIR, 'pglite'));
}
