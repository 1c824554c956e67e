import type { TestContext } from 'node:test';
import { consumerGroupIdsOf } from '@memstream/config';
import { MemoryBus, type BusRecord } from '@memstream/bus';
import { MemoryFanout, MemoryRequestLedger } from '@memstream/fanout';
import { createHttpServer } from '@memstream/http';
import { createAuthenticator } from '@memstream/auth';
import { Lifecycle } from '@memstream/runtime';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { TOPICS } from '@memstream/schemas';
import { startWriter } from '@memstream/ingest';
import { registerApi } from '@memstream/api';
import { findRequestOutcome, type Store } from '@memstream/store';

export const log = createLogger({ service: 'test', level: 'silent' });

/** The input topic a test watches: what the gateway published there is in `published`. */
type InputTopic = (typeof TOPICS)['groupChatInput' | 'arkMessages'];

// The gateway alone, on the in-process bus with no converter behind it: what it refuses never
// reaches the topic, and what it cannot finish it answers honestly.
export async function gateway(
  t: TestContext,
  settings: {
    syncTimeoutMs?: number;
    maxInFlight?: number;
    maxEventBytes?: number;
    store?: Store;
    topic?: InputTopic;
  } = {},
) {
  const metrics = new Metrics();
  const bus = new MemoryBus(log, 1, metrics);
  const published: BusRecord[] = [];
  await bus.subscribe({
    groupId: 'probe',
    topic: (settings.topic ?? TOPICS.groupChatInput).name,
    dlqTopic: (settings.topic ?? TOPICS.groupChatInput).dlq,
    retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 1 },
    handler: async (r) => void published.push(r),
  });
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 1000 });
  const server = createHttpServer({
    log,
    lifecycle,
    bodyLimitBytes: 64 * 1024,
    metrics,
    authenticator: createAuthenticator({ apiKeys: [] }),
  });
  const fanout = new MemoryFanout();
  const ledger = new MemoryRequestLedger(60);
  const writer = await startWriter({
    bus,
    fanout,
    ledger,
    // Without a store, no outcome is ever recorded: what a gateway with no converter behind it sees.
    lookup: async (requestId) => (settings.store ? findRequestOutcome(settings.store, requestId) : undefined),
    settings: {
      syncTimeoutMs: settings.syncTimeoutMs ?? 50,
      maxInFlight: settings.maxInFlight ?? 100,
      maxEventBytes: settings.maxEventBytes ?? 100_000,
    },
    log,
  });
  // The store answers other families' access pre-checks; EverMemOS's message and metadata writes never ask it.
  await registerApi(server, 'gateway', {
    consumerGroups: consumerGroupIdsOf({}),
    store: settings.store ?? ({} as never),
    ledger,
    fanout,
    write: writer.write,
    syncTimeoutMs: 50,
    episodeRules: { maxMessages: 50, maxTokens: 8_192, silenceMs: 4 * 3_600_000 },
    sseHeartbeatMs: 15_000,
    streamAccessRecheckMs: 5000,
    responses: undefined,
    kaos: { enabled: true, defaultAgent: 'agent', maxSessions: 1000, maxSessionEvents: 500 },
  });
  lifecycle.markReady();
  t.after(async () => {
    await writer.stop();
    await server.close();
    await bus.close();
  });
  return { server, bus, published };
}
