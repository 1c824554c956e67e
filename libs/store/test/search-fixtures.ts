import type { TestContext } from 'node:test';
import { createLogger } from '@memstream/logging';
import { PgStore, openPglite, type Store } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

export const log = createLogger({ service: 'test', level: 'silent' });

/** Both stores search runs on: each test of search is run against each. */
export const backends: Array<[string, (t: TestContext) => Promise<Store>]> = [
  ['PGlite', async () => openPglite()],
  [
    'native PostgreSQL',
    async (t) =>
      new PgStore({ connectionString: await freshDatabase(t), maxConnections: 4, statementTimeoutMs: 60_000, log }),
  ],
];

/** A deterministic generator, so a failure can be replayed. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
