import type { Writer } from '@memstream/ingest';
import type { QueryEmbedder } from '@memstream/search';

/**
 * What a process serving one half has in place of the other half's dependencies: a family
 * registers its routes from one function (see Halves), and a route of the half not served is
 * never registered, so reaching one of these is a bug, said as such.
 */
function notServed(what: string): never {
  throw new Error(`${what}: this process does not serve that half (see runApi's roles)`);
}

/** The read API never publishes. */
export const noWrites = (async () => notServed('a read route tried to publish')) as Writer;

/** The ingest gateway embeds no queries (it loads no model). */
export const noQueries: QueryEmbedder = {
  get model(): string {
    return notServed('a write route asked for the query model');
  },
  get dimension(): number {
    return notServed('a write route asked for the query model');
  },
  embed: async () => notServed('a write route tried to embed a query'),
};
