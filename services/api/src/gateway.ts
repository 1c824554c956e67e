import type { FastifyInstance } from 'fastify';
import { assertAuthenticated, errorHandlerFor, type ApiDocsOptions } from '@memstream/http';
import { everMemOsDocs } from './families.js';
import { everMemOsErrorShape } from './families/evermemos/error-shape.js';
import type { Writer } from '@memstream/ingest';
import { registerPostMemory } from './families/evermemos/post-memory.js';
import { registerConversationMeta } from './families/evermemos/conversation-meta.js';

export interface GatewayDeps {
  /** The process's write path (libs/ingest): publish, then hold the call until the outcome. */
  readonly write: Writer;
}

/** What the gateway's `/docs` says of itself. */
export const gatewayApiDocs: ApiDocsOptions = {
  title: 'memstream ingest gateway',
  description:
    'The write side of the EverMemOS API: messages and conversation metadata, published to Kafka and answered once stored.',
  families: [everMemOsDocs],
};

/**
 * Registers the gateway's routes on a server the caller owns (its own process, or the embedded
 * all-in-one). Each API family is its own encapsulated plugin with its own error shape.
 */
export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  assertAuthenticated(app);
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerPostMemory(evermemos, deps.write);
    registerConversationMeta(evermemos, deps.write);
  });
}
