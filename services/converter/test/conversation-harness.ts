import type { TestContext } from 'node:test';
import { MemoryBus } from '@memstream/bus';
import { MemoryFanout } from '@memstream/fanout';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { TOPICS, type ConversationInput } from '@memstream/schemas';
import { PgStore, migrate } from '@memstream/store';
import { handleConversationBatch } from '@memstream/converter';
import { freshDatabase } from '../../../test/helpers/infra.js';

const silent = createLogger({ service: 'test', level: 'silent' });

/**
 * The conversation input handler on a fresh database, as the converter runs it: `apply` hands it
 * events as one batch; calls made at once run at once, like handlers of different partitions.
 */
export async function conversationHarness(t: TestContext) {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 8,
    statementTimeoutMs: 10_000,
    log: silent,
  });
  t.after(() => store.close());
  await migrate(store, silent);
  const bus = new MemoryBus(silent, 1, new Metrics());
  t.after(() => bus.close());
  await bus.ensureTopics([{ name: TOPICS.messagesStored.name }]);
  const handle = handleConversationBatch({
    store,
    bus,
    fanout: new MemoryFanout(),
    metas: undefined as never,
    rules: undefined as never,
  });
  const ctx = { attempt: 1, log: silent, correlationIds: [], signal: new AbortController().signal };
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await store.query<{ n: string }>(sql, params)).rows[0]!.n);
  return { store, count, apply: (...events: ConversationInput[]) => handle(events, ctx) };
}
