import type { Store } from './store.js';

/**
 * PGlite (PostgreSQL in WASM, in this process) under `dataDir`, or in memory when it is undefined
 * (tests, benchmarks). Imported on demand: a process that never asks for PGlite never loads it.
 */
export async function openPglite(dataDir?: string): Promise<Store> {
  const { PgliteStore } = await import('./pglite-store.js');
  return PgliteStore.open(dataDir);
}
