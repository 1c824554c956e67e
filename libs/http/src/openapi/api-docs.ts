import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ApiFamily } from './api-family.js';
import type { ErrorShape } from '../error-shapes/error-shape.js';
import { markOptionalBodies } from './optional-body.js';
import { STORABLE_JSON } from '@memstream/schemas';

export interface ApiDocsOptions {
  readonly title: string;
  readonly description: string;
  /** Families whose tags the document lists, in this order. */
  readonly families: readonly ApiFamily[];
  /** The body of a 404 on a path no family claims (the default error shape when unset). */
  readonly unclaimedNotFound?: ErrorShape;
}

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "A person: a JWT whose `sub` is the user id (HS256, or RS256/ES256 from the identity provider's key set). An agent may send its API key here instead.",
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An agent: one of the keys the server is configured with (AUTH_API_KEYS).',
  },
} as const;

/** The OpenAPI version of the document; 3.1 embeds JSON Schema 2020-12, which zod emits. */
const OPENAPI_VERSION = '3.1.0';

/**
 * Serves the OpenAPI document of every route registered after this call: the UI at `/docs`, the
 * document at `/docs/json` (and `/docs/yaml`). The UI's assets come from the installed package, so
 * it works offline; the online validator badge is off for the same reason.
 */
export function registerApiDocs(app: FastifyInstance, options: ApiDocsOptions, authenticated: boolean): void {
  void app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: options.title, description: options.description, version: '1.0.0' },
      tags: options.families.map((f) => ({ name: f.tag, description: f.description })),
      // The document describes the server that serves it: credentials are required exactly when
      // this server checks them (the health, metrics and docs routes are hidden from it).
      // request bodies refer to StorableJson for the values they leave open
      components: {
        schemas: { StorableJson: STORABLE_JSON },
        ...(authenticated ? { securitySchemes: SECURITY_SCHEMES } : {}),
      },
      ...(authenticated ? { security: [{ bearerAuth: [] }, { apiKey: [] }] } : {}),
    },
    transformObject: (document) =>
      'openapiObject' in document ? markOptionalBodies(document.openapiObject) : document.swaggerObject,
  });
  void app.register(swaggerUi, { routePrefix: '/docs', validatorUrl: false });
}
