import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createAuthenticator } from '@memstream/auth';
import { MemoryBus } from '@memstream/bus';
import { MemstreamClient, MemstreamError } from '@memstream/client';
import { createHashEmbedder } from '@memstream/embedding';
import { MemoryFanout, MemoryRequestLedger } from '@memstream/fanout';
import { createHttpServer } from '@memstream/http';
import { startWriter } from '@memstream/ingest';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { registerReadApi } from '@memstream/read-api';
import { Lifecycle } from '@memstream/runtime';
import { PgStore, migrate } from '@memstream/store';
import { freshDatabase } from '../helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });
const AGENT_KEY = 'retries-agent-key-0123456789';

/**
 * The read API as its process composes it, on a real PostgreSQL, with a bus that refuses every
 * publish as a broker that is down does; it counts the calls it receives.
 */
async function readApiWithoutBroker(t: TestContext): Promise<{ base: string; received: () => number }> {
  const store = new PgStore({ connectionString: await freshDatabase(t), maxConnections: 4, statementTimeoutMs: 10_000, log });
  t.after(() => store.close());
  await migrate(store, log);
  const metrics = new Metrics();
  const bus = new MemoryBus(log, 1, metrics);
  const writer = await startWriter({ bus, fanout: new MemoryFanout(), ledger: new MemoryRequestLedger(60), settings: { syncTimeoutMs: 1000, maxInFlight: 100, maxEventBytes: 1_000_000 }, log });
  await bus.close();
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 1000, exit: () => undefined });
  const http = createHttpServer({ log, lifecycle, bodyLimitBytes: 1_000_000, metrics, authenticator: createAuthenticator({ apiKeys: [{ clientId: 'agent', key: AGENT_KEY }] }) });
  let received = 0;
  http.addHook('onRequest', async () => void received++);
  await registerReadApi(http, {
    store, ledger: new MemoryRequestLedger(60), fanout: new MemoryFanout(), write: writer.write, embedder: createHashEmbedder({ dimension: 16 }) as never,
    sseHeartbeatMs: 15_000, rules: { maxMessages: 50, maxTokens: 8192, silenceMs: 3_600_000 }, syncTimeoutMs: 1000, responses: undefined,
    kaos: { enabled: true, defaultAgent: 'agent', maxSessions: 10, maxSessionEvents: 10 },
  });
  await http.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await http.close();
    await writer.stop();
  });
  const address = http.server.address();
  return { base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, received: () => received };
}

test('@memstream/client: a 503 that may have been published is not repeated for a write without a client id, and is for one with an id', async (t: TestContext) => {
  const { base, received } = await readApiWithoutBroker(t);
  // two attempts at most: the second waits out the server's Retry-After (5 s)
  const client = new MemstreamClient({ baseUrl: base, apiKey: AGENT_KEY, retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 } });

  // memory-service ids are the server's: a second attempt could store the message twice
  const before = received();
  // (the code layout: a message to a conversation that does not exist yet creates it)
  const append = await client.memoryService.conversations.appendMessage('retries-conv', { content: [{ type: 'text', text: 'hello' }] }).catch((e: unknown) => e);
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
