import type { FastifyInstance } from 'fastify';
import type { RequestLedger } from '@memstream/fanout';
import { errorHandlerFor, everMemOsErrorShape } from '@memstream/http';
import type { Store } from '@memstream/store';
import { registerGetMemories } from './routes/evermemos/get-memories.js';
import { registerGetConversationMeta } from './routes/evermemos/get-conversation-meta.js';
import { registerGetRequestStatus } from './routes/evermemos/get-request-status.js';
import { registerSummaries } from './routes/memory-agent/summaries.js';

export interface ReadApiDeps {
  readonly store: Store;
  /** The gateways' accepted markers, for requests the converter has not reached yet. */
  readonly ledger: RequestLedger;
}

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
}
