import type { TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import { migrate, PgStore } from '@memstream/store';
import { freshDatabase } from './infra.js';
import { testLayout } from '../../harness/store-layout.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** A native PostgreSQL store on a fresh database, migrated and laid out as the suite runs, closed when the test ends. */
export async function migratedStore(t: TestContext): Promise<PgStore> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 60_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log, undefined, testLayout());
  return store;
}
