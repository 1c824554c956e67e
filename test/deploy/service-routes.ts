import type { FastifyInstance } from 'fastify';
import type { ApiDocsOptions } from '@memstream/http';
import { apiDocsOf, registerApi } from '@memstream/api';
import { docsServer } from '../../harness/docs-server.js';
import { isApiProcess } from './catalogue.js';

export interface ServiceRoute {
  readonly service: string;
  readonly method: string;
  /** A concrete path for the route: `:param` segments and wildcards filled in. */
  readonly path: string;
  readonly declared: string;
}

interface ApiRegistration {
  readonly docs: ApiDocsOptions;
  readonly register: (app: FastifyInstance) => Promise<void>;
}

// Dependencies the routes never touch while being registered (as in test/openapi.test.ts).
const none = {} as never;

/** How each API process's main puts its routes on its server: its role in runApi. A new API process adds its line here. */
const API_REGISTRATIONS: Record<string, ApiRegistration> = {
  'ingest-gateway': { docs: apiDocsOf('gateway'), register: (app) => registerApi(app, 'gateway', none) },
  'read-api': { docs: apiDocsOf('read'), register: (app) => registerApi(app, 'read', none) },
};

/** Every route a server ends up with, as `METHOD url`, fastify's implicit HEAD routes included. */
async function registeredRoutes(docs: ApiDocsOptions, register?: ApiRegistration['register']): Promise<Set<string>> {
  const app = docsServer(docs);
  const routes = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.add(`${method} ${route.url}`);
  });
  if (register) await register(app);
  await app.ready();
  await app.close();
  return routes;
}

/**
 * The HTTP routes a service registers, read from the server its composition builds rather than
 * from its source, so that paths built from variables and loops are seen as fastify sees them.
 * Leaves out what every server has (probes, metrics, its /docs): each process answers those
 * itself and nothing routes them from outside.
 */
export async function routesOf(service: string): Promise<ServiceRoute[]> {
  if (!isApiProcess(service)) return [];
  const registration = API_REGISTRATIONS[service];
  if (registration === undefined)
    throw new Error(`API process ${service} has no entry in API_REGISTRATIONS (test/deploy/service-routes.ts)`);
  const own = await registeredRoutes(registration.docs);
  const all = await registeredRoutes(registration.docs, registration.register);
  return [...all]
    .filter((route) => !own.has(route))
    .map((route) => {
      const [method, declared] = route.split(' ') as [string, string];
      return {
        service,
        method,
        declared,
        path: declared.replace(/:[A-Za-z_]\w*(\([^)]*\))?/g, 'some-id').replace(/\*$/, 'some-id'),
      };
    });
}
