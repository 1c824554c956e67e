import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ApiFamily } from './api-family.js';

export interface ApiDocsOptions {
  readonly title: string;
  readonly description: string;
  /** Families whose tags the document lists, in this order. */
  readonly families: readonly ApiFamily[];
}

/** The OpenAPI version of the document; 3.1 embeds JSON Schema 2020-12, which zod emits. */
const OPENAPI_VERSION = '3.1.0';

/**
 * Serves the OpenAPI document of every route registered after this call: the UI at `/docs`, the
 * document at `/docs/json` (and `/docs/yaml`). The UI's assets come from the installed package, so
 * it works offline; the online validator badge is off for the same reason.
 */
export function registerApiDocs(app: FastifyInstance, options: ApiDocsOptions): void {
  void app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: options.title, description: options.description, version: '1.0.0' },
      tags: options.families.map((f) => ({ name: f.tag, description: f.description })),
    },
  });
  void app.register(swaggerUi, { routePrefix: '/docs', validatorUrl: false });
}
