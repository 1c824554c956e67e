import type { FastifyInstance } from 'fastify';
import type { ApiDocsOptions } from '@memstream/http';
import { API_FAMILIES, registerGateway, type GatewayDeps, registerReadApi, type ReadApiDeps } from '@memstream/api';

/** What the embedded mode's `/docs` says of itself; `openapi.json` at the repository root is this document. */
export const embeddedApiDocs: ApiDocsOptions = {
  title: 'memstream',
  description:
    'Conversation memory for AI agents and group chats: every API family on one address. Writes go through Kafka and answer once stored.',
  families: API_FAMILIES,
};

/**
 * Every HTTP API on one server, as the embedded mode serves them. `npm run openapi` builds the
 * checked-in document from this same composition, so the file and the served `/docs/json` agree.
 */
export async function registerEmbeddedApi(app: FastifyInstance, deps: GatewayDeps & ReadApiDeps): Promise<void> {
  await registerGateway(app, deps);
  await registerReadApi(app, deps);
}
