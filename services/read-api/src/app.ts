import type { FastifyInstance } from 'fastify';
import type { Fanout, RequestLedger } from '@memstream/fanout';
import { API_FAMILIES, arkErrorShape, errorHandlerFor, everMemOsErrorShape, type ApiDocsOptions } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import type { Store } from '@memstream/store';
import { registerGetMemories } from './routes/evermemos/get-memories.js';
import { registerGetConversationMeta } from './routes/evermemos/get-conversation-meta.js';
import { registerGetRequestStatus } from './routes/evermemos/get-request-status.js';
import { registerSummaries } from './routes/memory-agent/summaries.js';
import { registerArkMessages } from './routes/ark/messages.js';
import { registerStream } from './routes/ark/stream.js';
import { registerSessionWrites } from './routes/ark/session-complete.js';

export interface ReadApiDeps {
  readonly store: Store;
  /** The gateways' accepted markers, for requests the converter has not reached yet. */
  readonly ledger: RequestLedger;
  /** Live events of conversations (SSE streams), Redis across replicas. */
  readonly fanout: Fanout;
  /** ARK's POST /messages writes through Kafka like every write. */
  readonly write: Writer;
  readonly sseHeartbeatMs: number;
}

/** What the read API's `/docs` says of itself. */
export const readApiDocs: ApiDocsOptions = {
  title: 'memstream read API',
  description: "Reads of every API family, and ARK's whole Memory API, its writes included (ARK points at one address).",
  families: API_FAMILIES,
};

/** Registers the read routes on a server the caller owns; one plugin per API family. */
export async function registerReadApi(app: FastifyInstance, deps: ReadApiDeps): Promise<void> {
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerGetMemories(evermemos, deps);
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
    registerStream(ark, { store: deps.store, fanout: deps.fanout, heartbeatMs: deps.sseHeartbeatMs });
    registerSessionWrites(ark, deps);
  });
}
