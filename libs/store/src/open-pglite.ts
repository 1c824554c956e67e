import type { PgliteStore } from './pglite-store.js';

/**
 * PGlite (PostgreSQL in WASM, in this process) under `dataDir`, or in memory when it is undefined
 * (tests, benchmarks); from `image` (a `dump()` of another) when given. Imported on demand: a
 * process that never asks for PGlite never loads it.
 */
export async function openPglite(dataDir?: string, image?: Blob): Promise<PgliteStore> {
  const { PgliteStore } = await import('./pglite-store.js');
  return PgliteStore.open(dataDir, image);
}
