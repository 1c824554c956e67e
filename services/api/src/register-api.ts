import type { FastifyInstance } from 'fastify';
import { assertAuthenticated, errorHandlerFor, type ApiDocsOptions, type ZodTypeProvider } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import type { QueryEmbedder } from '@memstream/search';
import type { FamilyDeps } from './api-deps.js';
import { API_FAMILIES, FAMILIES } from './families.js';
import { noQueries, noWrites } from './shared/not-served.js';
import { StreamAccess } from './shared/stream-access.js';
import { unclaimedNotFound } from './shared/unclaimed-not-found.js';

/**
 * What a process serves: `gateway` every family's writes (it publishes to Kafka and holds each
 * call until stored), `read` every family's reads (it never publishes), `all` both on one server
 * (the embedded mode, and the document `npm run openapi` writes).
 */
export type ApiRole = 'gateway' | 'read' | 'all';

type SharedDeps = Omit<FamilyDeps, 'write' | 'embedder' | 'access'> & {
  /** The backstop re-check of open streams' access (see StreamAccess). */
  readonly streamAccessRecheckMs: number;
};

/** The dependencies a role needs: the write path to serve writes, the query model to serve reads. */
export type ApiDeps<R extends ApiRole> = SharedDeps &
  (R extends 'gateway'
    ? { readonly write: Writer }
    : R extends 'read'
      ? { readonly embedder: QueryEmbedder }
      : { readonly write: Writer; readonly embedder: QueryEmbedder });

const DOCS: Record<ApiRole, Omit<ApiDocsOptions, 'families'>> = {
  gateway: {
    title: 'memstream ingest gateway',
    description: 'The writes of every API family: each published to Kafka and answered once stored (read-your-writes).',
  },
  read: {
    title: 'memstream read API',
    description:
      'The reads of every API family: listings, searches, Server-Sent Event streams, request status and context. It never publishes.',
  },
  all: {
    title: 'memstream',
    description:
      'Conversation memory for AI agents and group chats: every API family on one address. Writes go through Kafka and answer once stored.',
  },
};

/** What a role's `/docs` says of itself; the `all` document is `openapi.json` at the repository root. */
export function apiDocsOf(role: ApiRole): ApiDocsOptions {
  return { ...DOCS[role], families: API_FAMILIES, unclaimedNotFound };
}

/**
 * Registers a role's halves of every family on a server the caller owns, each family a plugin of
 * its own answering errors in its shape. Registering touches no dependency: routes use them only
 * when a request arrives (the OpenAPI document is built that way).
 */
export async function registerApi<R extends ApiRole>(app: FastifyInstance, role: R, deps: ApiDeps<R>): Promise<void> {
  assertAuthenticated(app);
  // People's open streams (ARK's and the response resumer) end when their access does; nothing is
  // subscribed until a stream opens, so a process serving no stream pays nothing for it.
  const access = new StreamAccess({
    store: deps.store,
    fanout: deps.fanout,
    recheckMs: deps.streamAccessRecheckMs,
    log: app.log,
  });
  app.addHook('onClose', () => access.close());
  const served: FamilyDeps = {
    write: noWrites,
    embedder: noQueries,
    ...deps,
    access,
  };
  for (const family of FAMILIES) {
    await app.register(async (plain) => {
      const scope = plain.withTypeProvider<ZodTypeProvider>();
      if (family.errorShape) scope.setErrorHandler(errorHandlerFor(family.errorShape));
      family.register(
        { writes: role === 'read' ? undefined : scope, reads: role === 'gateway' ? undefined : scope },
        served,
      );
    });
  }
}
