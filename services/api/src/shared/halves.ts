import type { ZodApp } from '@memstream/http';

/**
 * The two servers a route file with both kinds of route registers on: `writes` takes every route
 * that publishes to the bus or changes state, `reads` every route that only reads. A process
 * serving one half passes only that one, and the other half's routes are not registered there
 * (see runApi); each route says at its registration which half it is. Both are typed by the
 * routes' zod schemas (see ZodTypeProvider).
 */
export interface Halves {
  readonly writes?: ZodApp | undefined;
  readonly reads?: ZodApp | undefined;
}
