import type { TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import type { BusJournal } from '@memstream/bus';
import { PgStore, migrate, storeBusJournal } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

/**
 * A bus journal in a PostgreSQL database of the test's own, dropped when the test ends. Teardown
 * runs in the order it was registered: close every bus on it before calling this.
 */
export async function pgJournal(t: TestContext): Promise<{ journal: BusJournal; store: PgStore }> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  return { journal: storeBusJournal(store), store };
}
