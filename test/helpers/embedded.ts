import type { TestContext } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@memstream/config';
import { allInOneEnv } from '@memstream/all-in-one';
import { createLogger, type Logger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { startEmbedded } from '@memstream/all-in-one';
import { layoutEnv } from '../../harness/store-layout.js';

/**
 * The embedded mode exactly as `npm start` composes it (in-process bus, its own PostgreSQL server in a temporary
 * directory), inside the test process, on a free port, with a registry of its own (as a process
 * has); shut down when the test ends. Silent unless given a logger (a capturing one, to assert
 * on its lines).
 */
export async function embeddedMemstream(
  t: TestContext,
  env: Record<string, string> = {},
  options: { log?: Logger } = {},
): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-embedded-'));
  const log = options.log ?? createLogger({ service: 'embedded-test', level: 'silent' });
  // The deadline outlasts the PostgreSQL server's own stop (a fast shutdown, then an immediate one
  // after 20 s): on a loaded machine a 5 s deadline let the shutdown return while the server still
  // wrote its shutdown checkpoint into pg_wal, and the folder's removal failed with ENOTEMPTY.
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 60_000, exit: () => undefined });
  // One hook, in this order (node:test runs hooks first-registered first): the store's PostgreSQL
  // server writes into DATA_DIR until the shutdown has stopped it.
  t.after(async () => {
    await lifecycle.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });
  const config = loadConfig(allInOneEnv, { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...layoutEnv(), ...env });
  const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics({ processMetrics: true }) });
  lifecycle.markReady();
  return `http://127.0.0.1:${port}`;
}

/** True once the service at `base` answers its readiness check. */
export async function healthy(base: string): Promise<boolean> {
  return fetch(`${base}/health`).then(
    (r) => r.ok,
    () => false,
  );
}
