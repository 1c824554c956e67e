import type { FastifyInstance } from 'fastify';
import type { ReadApiConfig } from './config.js';
import type { Fanout, RequestLedger, ResponseStreams } from '@memstream/fanout';
import { assertAuthenticated, errorHandlerFor, type ApiDocsOptions } from '@memstream/http';
import {
  API_FAMILIES,
  arkErrorShape,
  everMemOsErrorShape,
  kaosErrorShape,
  memoryServiceErrorShape,
} from '@memstream/api-families';
import type { Writer } from '@memstream/ingest';
import type { Store } from '@memstream/store';
import { registerGetMemories } from './routes/evermemos/get-memories.js';
import { registerSearchMemories } from './routes/evermemos/search-memories.js';
import { registerDeleteMemories } from './routes/evermemos/delete-memories.js';
import { registerFlushMemories } from './routes/evermemos/flush-memories.js';
import { registerGetMemoryStats } from './routes/evermemos/get-memory-stats.js';
import type { QueryEmbedder } from '@memstream/search';
import { registerGetConversationMeta } from './routes/evermemos/get-conversation-meta.js';
import { registerGetRequestStatus } from './routes/evermemos/get-request-status.js';
import { registerSummaries } from './routes/memory-agent/summaries.js';
import { registerArkMessages } from './routes/ark/messages.js';
import { registerStream } from './routes/ark/stream.js';
import { registerSessionWrites } from './routes/ark/session-complete.js';
import { memoryServiceHandlers } from './routes/memory-service/handlers.js';
import { registerDocumentRoutes } from './routes/memory-service/document-routes.js';
import { registerCodeRoutes } from './routes/memory-service/code-routes.js';
import { registerSearch } from './routes/memory-service/search.js';
import { registerAgentContext } from './routes/memory-service/agent-context.js';
import { registerResponseResumer } from './routes/memory-service/response-resumer.js';
import { agentOf, kaosOps, type KaosSettings } from './routes/kaos/kaos-ops.js';
import { StreamAccess } from './stream-access.js';
import { registerKaosSessionRoutes } from './routes/kaos/session-routes.js';
import { registerKaosMemoryRoutes } from './routes/kaos/memory-routes.js';
import { registerNullMemoryRoutes } from './routes/kaos/null-memory.js';
import { registerAdmin, type EvictionSettings } from './routes/admin/index.js';

export interface ReadApiDeps {
  readonly store: Store;
  /** The gateways' accepted markers, for requests the converter has not reached yet. */
  readonly ledger: RequestLedger;
  /** Live events of conversations (SSE streams), Redis across replicas. */
  readonly fanout: Fanout;
  /** ARK's POST /messages writes through Kafka like every write. */
  readonly write: Writer;
  readonly sseHeartbeatMs: number;
  /** The backstop re-check of open streams' access (see StreamAccess). */
  readonly streamAccessRecheckMs: number;
  /** Embeds search queries with the model the indexer stores vectors of. */
  readonly embedder: QueryEmbedder;
  /** How long a flush waits for its extraction (the write paths' sync timeout). */
  readonly syncTimeoutMs: number;
  /** The memory-service response resumer; undefined when it is disabled. */
  readonly responses: ResponseStreams | undefined;
  /** KAOS agent memory: its default agent and limits; disabled gives KAOS's NullMemory. */
  readonly kaos: KaosSettings & { readonly enabled: boolean };
  /** How eviction runs (POST /v1/admin/evict and the sweep for jobs a dead process left). */
  readonly eviction: EvictionSettings;
}

/** What the read API's `/docs` says of itself. */
export const readApiDocs: ApiDocsOptions = {
  title: 'memstream read API',
  description:
    "Reads of every API family, and ARK's whole Memory API, its writes included (ARK points at one address).",
  families: API_FAMILIES,
};

/** Registers the read routes on a server the caller owns; one plugin per API family. */
export async function registerReadApi(app: FastifyInstance, deps: ReadApiDeps): Promise<void> {
  assertAuthenticated(app);
  // People's open streams (ARK's and the response resumer) end when their access does.
  const streamAccess = new StreamAccess({
    store: deps.store,
    fanout: deps.fanout,
    recheckMs: deps.streamAccessRecheckMs,
    log: app.log,
  });
  app.addHook('onClose', () => streamAccess.close());
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerGetMemories(evermemos, deps);
    registerSearchMemories(evermemos, deps);
    registerDeleteMemories(evermemos, deps);
    registerFlushMemories(evermemos, deps);
    registerGetMemoryStats(evermemos, deps);
    registerGetConversationMeta(evermemos, deps);
    registerGetRequestStatus(evermemos, deps);
  });
  // The Memory Agent has no HTTP error format of its own: the platform's default shape.
  await app.register(async (memoryAgent) => {
    registerSummaries(memoryAgent, deps);
  });
  // ARK's memory API lives here whole, reads and writes, because ARK's controller points its
  // Memory at a single address and /messages and /stream/{id} take both.
  await app.register(async (ark) => {
    ark.setErrorHandler(errorHandlerFor(arkErrorShape));
    registerArkMessages(ark, deps);
    registerStream(ark, {
      store: deps.store,
      fanout: deps.fanout,
      heartbeatMs: deps.sseHeartbeatMs,
      access: streamAccess,
    });
    registerSessionWrites(ark, deps);
  });
  // memory-service, in both of its layouts from one implementation; writes go through Kafka.
  await app.register(async (memoryService) => {
    memoryService.setErrorHandler(errorHandlerFor(memoryServiceErrorShape));
    const handlers = memoryServiceHandlers({ store: deps.store, write: deps.write });
    registerDocumentRoutes(memoryService, handlers);
    registerCodeRoutes(memoryService, handlers);
    registerSearch(memoryService, deps);
    registerAgentContext(memoryService, handlers, deps.store);
    registerResponseResumer(memoryService, handlers, {
      responses: deps.responses,
      heartbeatMs: deps.sseHeartbeatMs,
      access: streamAccess,
    });
  });
  // KAOS agent memory: sessions and events per agent; writes go through Kafka.
  await app.register(async (kaos) => {
    kaos.setErrorHandler(errorHandlerFor(kaosErrorShape));
    // (deps.kaos is absent only where routes are registered to be listed or documented, never served.)
    if (deps.kaos?.enabled === false)
      return registerNullMemoryRoutes(kaos, (request) => agentOf(request, deps.kaos.defaultAgent));
    const ops = kaosOps({ store: deps.store, write: deps.write, settings: deps.kaos });
    registerKaosSessionRoutes(kaos, ops, deps.store);
    registerKaosMemoryRoutes(kaos, ops, deps.store);
  });
  // The admin and auditor API; every call is written to the audit log.
  await registerAdmin(app, deps);
}

/** The read API's settings from its configuration (the read API's own, or the all-in-one's). */
export function readApiSettingsOf(
  config: ReadApiConfig,
): Pick<ReadApiDeps, 'sseHeartbeatMs' | 'streamAccessRecheckMs' | 'syncTimeoutMs' | 'kaos' | 'eviction'> {
  return {
    eviction: {
      batchSize: config.EVICTION_BATCH_SIZE,
      leaseMs: config.EVICTION_LEASE_MS,
      sweepIntervalMs: config.EVICTION_SWEEP_INTERVAL_MS,
      maxAttempts: config.EVICTION_MAX_ATTEMPTS,
    },
    kaos: {
      enabled: config.MEMORY_ENABLED,
      defaultAgent: config.KAOS_AGENT_NAME,
      maxSessions: config.MEMORY_MAX_SESSIONS,
      maxSessionEvents: config.MEMORY_MAX_SESSION_EVENTS,
    },
    sseHeartbeatMs: config.SSE_HEARTBEAT_MS,
    streamAccessRecheckMs: config.STREAM_ACCESS_RECHECK_MS,
    syncTimeoutMs: config.REQUEST_SYNC_TIMEOUT_MS,
  };
}
