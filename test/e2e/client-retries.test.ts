import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemstreamClient, MemstreamError } from '@memstream/client';
import { createLogger } from '@memstream/logging';
import { PgStore, migrate } from '@memstream/store';
import { freshDatabase } from '../helpers/infra.js';
import { startInProcessReadApi } from '../../harness/read-api.js';

const log = createLogger({ service: 'test', level: 'silent' });
const AGENT_KEY = 'retries-agent-key-0123456789';

/** The read API on a real PostgreSQL, with a bus that refuses every publish as a broker that is down does. */
async function readApiWithoutBroker(t: TestContext): Promise<{ base: string; received: () => number }> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const api = await startInProcessReadApi({ store, log, apiKeys: [{ clientId: 'agent', key: AGENT_KEY }] });
  t.after(() => api.close());
  await api.bus.close();
  return api;
}

test('@memstream/client: a 503 that may have been published is not repeated for a write without a client id, and is for one with an id', async (t: TestContext) => {
  const { base, received } = await readApiWithoutBroker(t);
  // two attempts at most: the second waits out the server's Retry-After (5 s)
  const client = new MemstreamClient({
    baseUrl: base,
    apiKey: AGENT_KEY,
    retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
  });

  // memory-service ids are the server's: a second attempt could store the message twice
  const before = received();
  // (the code layout: a message to a conversation that does not exist yet creates it)
  const append = await client.memoryService.conversations
    .appendMessage('retries-conv', { content: [{ type: 'text', text: 'hello' }] })
    .catch((e: unknown) => e);
  assert.ok(append instanceof MemstreamError, 'the refusal reaches the caller');
  assert.deepEqual([append.status, append.code], [503, 'service_unavailable']);
  assert.equal(received() - before, 1, 'one attempt');

  // a KAOS session gets its id from the client before the first attempt, so a repeat creates it once: it is tried again
  const start = received();
  const create = await client.kaos.createSession({ user_id: 'u1' }).catch((e: unknown) => e);
  assert.ok(create instanceof MemstreamError);
  assert.deepEqual([create.status, create.code], [503, 'DEPENDENCY_UNAVAILABLE']);
  assert.equal(received() - start, 2, 'every attempt the retry policy allows');
});
