import { consumerGroupIdsOf } from '@memstream/config';
import { createAuthenticator } from '@memstream/auth';
import { MemoryBus } from '@memstream/bus';
import { createHashEmbedder } from '@memstream/embedding';
import { MemoryFanout, MemoryRequestLedger } from '@memstream/fanout';
import { createHttpServer } from '@memstream/http';
import { startWriter } from '@memstream/ingest';
import type { Logger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { registerApi } from '@memstream/api';
import { Lifecycle } from '@memstream/runtime';
import { findRequestOutcome, type Store } from '@memstream/store';

export interface InProcessReadApi {
  readonly base: string;
  readonly bus: MemoryBus;
  /** Calls received so far (every route, refused ones included). */
  received(): number;
  close(): Promise<void>;
}

/**
 * Every family's reads and writes (runApi's `all` composition), in this process, on a store the
 * caller owns: an in-process bus (nothing consumes it: a write is accepted, never stored, unless the caller
 * subscribes), the offline hash embedder, authentication with the given secret and keys, on a
 * port of its own. For benchmarks and tests of the read API alone.
 */
export async function startInProcessReadApi(options: {
  store: Store;
  log: Logger;
  jwtSecret?: string;
  apiKeys?: Array<{ clientId: string; key: string }>;
  embeddingDimension?: number;
  kaosEnabled?: boolean;
}): Promise<InProcessReadApi> {
  const { store, log } = options;
  const metrics = new Metrics();
  const bus = new MemoryBus(log, 1, metrics);
  const fanout = new MemoryFanout();
  const ledger = new MemoryRequestLedger(60);
  const writer = await startWriter({
    bus,
    fanout,
    ledger,
    lookup: (requestId) => findRequestOutcome(store, requestId),
    settings: { syncTimeoutMs: 1000, maxInFlight: 100, maxEventBytes: 1_000_000 },
    log,
  });
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
  const authenticator = createAuthenticator({
    ...(options.jwtSecret ? { secret: options.jwtSecret } : {}),
    apiKeys: options.apiKeys ?? [],
  });
  const http = createHttpServer({ log, lifecycle, bodyLimitBytes: 1_000_000, metrics, authenticator });
  let received = 0;
  http.addHook('onRequest', async () => void received++);
  await registerApi(http, 'all', {
    consumerGroups: consumerGroupIdsOf({}),
    store,
    ledger,
    fanout,
    write: writer.write,
    embedder: createHashEmbedder({ dimension: options.embeddingDimension ?? 16 }) as never,
    sseHeartbeatMs: 15_000,
    streamAccessRecheckMs: 5000,
    syncTimeoutMs: 1000,
    episodeRules: { maxMessages: 50, maxTokens: 8_192, silenceMs: 4 * 3_600_000 },
    responses: undefined,
    kaos: { enabled: options.kaosEnabled ?? true, defaultAgent: 'agent', maxSessions: 1000, maxSessionEvents: 500 },
  });
  await http.listen({ port: 0, host: '127.0.0.1' });
  const address = http.server.address();
  return {
    base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    bus,
    received: () => received,
    close: async () => {
      await http.close();
      await writer.stop();
      await bus.close();
    },
  };
}
