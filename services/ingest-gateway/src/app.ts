import type { FastifyInstance } from 'fastify';
import type { Bus } from '@memstream/bus';
import { errorHandlerFor, everMemOsErrorShape } from '@memstream/http';
import { registerPostMemory } from './routes/evermemos/post-memory.js';

export interface GatewayDeps {
  readonly bus: Bus;
}

/**
 * Registers the gateway's routes on a server the caller owns (its own process, or the embedded
 * all-in-one). Each API family is its own encapsulated plugin with its own error shape.
 */
export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerPostMemory(evermemos, deps);
  });
}
