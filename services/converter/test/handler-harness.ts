import type { TestContext } from 'node:test';
import { MemoryBus, type HandlerContext } from '@memstream/bus';
import { MemoryFanout } from '@memstream/fanout';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { PgStore, findRequestOutcomes, migrate } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { MetaCache } from '../src/meta-cache.js';
import type { ConverterDeps } from '../src/handlers/converter-deps.js';

const log = createLogger({ service: 'test', level: 'silent' });

/** What a handler is called with for one delivery. */
export const handlerContext: HandlerContext = {
  attempt: 1,
  log,
  correlationIds: [],
  signal: new AbortController().signal,
};

/**
 * A converter's dependencies for calling its handlers directly: a fresh migrated database, an
 * in-process bus and fan-out (closed when the test ends), and a reader of request outcomes.
 */
export async function handlerDeps(t: TestContext): Promise<{
  deps: ConverterDeps & { fanout: MemoryFanout };
  outcomeOf: (event: { id: string }) => ReturnType<typeof findOutcome>;
}> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const bus = new MemoryBus(log, 1, new Metrics());
  t.after(() => bus.close());
  const deps = {
    store,
    bus,
    fanout: new MemoryFanout(),
    metas: new MetaCache(10_000),
    rules: { maxMessages: 3, maxTokens: 100_000, silenceMs: 24 * 3_600_000 },
  };
  return { deps, outcomeOf: (event) => findOutcome(store, event.id) };
}

async function findOutcome(store: PgStore, id: string) {
  return (await findRequestOutcomes(store, [id])).get(id);
}
