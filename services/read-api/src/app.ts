import type { FastifyInstance } from 'fastify';
import { errorHandlerFor, everMemOsErrorShape } from '@memstream/http';
import type { Store } from '@memstream/store';
import { registerGetMemories } from './routes/evermemos/get-memories.js';

export interface ReadApiDeps {
  readonly store: Store;
}

/** Registers the read routes on a server the caller owns; one plugin per API family. */
export async function registerReadApi(app: FastifyInstance, deps: ReadApiDeps): Promise<void> {
  await app.register(async (evermemos) => {
    evermemos.setErrorHandler(errorHandlerFor(everMemOsErrorShape));
    registerGetMemories(evermemos, deps);
  });
}
