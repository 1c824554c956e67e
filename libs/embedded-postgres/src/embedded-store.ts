import { setPriority } from 'node:os';
import { join } from 'node:path';
import { PgStore, type PoolOptions, type Queryable, type Store } from '@memstream/store';
import { installedPostgres, resolvePostgresDir } from './binaries.js';
import { createLauncher } from './launcher.js';
import { ensureOsUser } from './os-user.js';
import { binDirFor } from './reachable-binaries.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres-server.js';

export interface EmbeddedStoreOptions {
  /** DATA_DIR/postgres */
  readonly root: string;
  /** Used only when this process is root. */
  readonly osUser: string;
  readonly binariesDir: string | undefined;
}

/** The settings of the embedded mode's own server (see platformEnv). */
export interface EmbeddedPostgresSettings {
  readonly DATA_DIR: string;
  readonly EMBEDDED_POSTGRES_OS_USER?: string;
  readonly MEMSTREAM_POSTGRES_DIR?: string | undefined;
}

/**
 * What `openStore` calls when DATABASE_URL is unset: the embedded mode's PostgreSQL under
 * DATA_DIR/postgres. The store knows nothing of the server; the embedded mode hands it this.
 */
export function embeddedPostgresOf(settings: EmbeddedPostgresSettings): (pool: PoolOptions) => Promise<Store> {
  const options = {
    root: join(settings.DATA_DIR, 'postgres'),
    osUser: settings.EMBEDDED_POSTGRES_OS_USER ?? 'memstream',
    binariesDir: settings.MEMSTREAM_POSTGRES_DIR,
  };
  return (pool) => openEmbeddedPostgresStore(options, pool);
}

/**
 * The embedded mode's store: the same PgStore as the distributed mode, on a PostgreSQL server
 * this process started on a Unix socket in DATA_DIR. Closing the store stops the server.
 */
export async function openEmbeddedPostgresStore(options: EmbeddedStoreOptions, pool: PoolOptions): Promise<Store> {
  const dir = resolvePostgresDir(options.binariesDir);
  const install = await installedPostgres(dir);
  if ('problem' in install) {
    throw new Error(
      `${install.problem}. \`npm ci\` installs it (or \`npm run postgres:install\`); elsewhere set DATABASE_URL to a PostgreSQL with pgvector, or EMBEDDED_STORE=pglite (not crash-safe)`,
    );
  }
  const osUser = process.getuid?.() === 0 ? await ensureOsUser(options.osUser) : undefined;
  const binDir = osUser ? await binDirFor(osUser, { dir, binDir: install.binDir }, pool.log) : install.binDir;
  const server = await startEmbeddedPostgres({
    root: options.root,
    binDir,
    launcher: await createLauncher(osUser),
    log: pool.log,
  });
  const background = new PgStore({
    connectionString: server.connectionString,
    ...pool,
    maxConnections: BACKGROUND_CONNECTIONS,
    onConnect: (pid) => setPriority(pid, BACKGROUND_NICE),
  });
  return new EmbeddedPostgresStore(
    new PgStore({ connectionString: server.connectionString, ...pool }),
    background,
    server,
  );
}

/**
 * Background work (indexing with its HNSW inserts, extraction, summaries) gets connections whose
 * server processes run at a lower CPU priority: one machine serves both, and under a burst of
 * writes the writes should get the cores while memory formation catches up after (measured:
 * HNSW maintenance alone cost more server CPU per message than storing it).
 */
const BACKGROUND_NICE = 10;
const BACKGROUND_CONNECTIONS = 4;

/** The store background consumers should use: the embedded mode's low-priority pool, else `store` itself. */
export function backgroundStoreOf(store: Store): Store {
  return store instanceof EmbeddedPostgresStore ? store.background : store;
}

class EmbeddedPostgresStore implements Store {
  readonly kind = 'pg' as const;

  constructor(
    private readonly pool: PgStore,
    readonly background: PgStore,
    private readonly server: EmbeddedPostgres,
  ) {}

  query: Store['query'] = (sql, params) => this.pool.query(sql, params);
  exec = (sql: string): Promise<void> => this.pool.exec(sql);
  ping = (): Promise<void> => this.pool.ping();
  transaction = <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => this.pool.transaction(fn);

  async close(): Promise<void> {
    try {
      await Promise.all([this.pool.close(), this.background.close()]);
    } finally {
      await this.server.stop();
    }
  }
}
