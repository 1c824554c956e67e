import type { Logger } from '@memstream/logging';
import type { Queryable, Store } from '../store.js';
import { PgStore } from '../pg-store.js';
import { installedPostgres, resolvePostgresDir } from './binaries.js';
import { createLauncher } from './launcher.js';
import { ensureOsUser } from './os-user.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres-server.js';

export interface EmbeddedStoreOptions {
  /** DATA_DIR/postgres */
  readonly root: string;
  /** Used only when this process is root. */
  readonly osUser: string;
  readonly binariesDir: string | undefined;
}

export interface PoolOptions {
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
  readonly log: Logger;
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
  const server = await startEmbeddedPostgres({ root: options.root, binDir: install.binDir, launcher: await createLauncher(osUser), log: pool.log });
  return new EmbeddedPostgresStore(new PgStore({ connectionString: server.connectionString, ...pool }), server);
}

class EmbeddedPostgresStore implements Store {
  readonly kind = 'pg' as const;

  constructor(
    private readonly pool: PgStore,
    private readonly server: EmbeddedPostgres,
  ) {}

  query: Store['query'] = (sql, params) => this.pool.query(sql, params);
  exec = (sql: string): Promise<void> => this.pool.exec(sql);
  ping = (): Promise<void> => this.pool.ping();
  transaction = <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => this.pool.transaction(fn);

  async close(): Promise<void> {
    try {
      await this.pool.close();
    } finally {
      await this.server.stop();
    }
  }
}
