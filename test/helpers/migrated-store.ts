import type { TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import { migrate, PgStore } from '@memstream/store';
import { freshDatabase } from './infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** A native PostgreSQL store on a fresh database, migrated, closed when the test ends. */
export async function migratedStore(t: TestContext): Promise<PgStore> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 60_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  return store;
}
