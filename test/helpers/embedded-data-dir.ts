import type { TestContext } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedPostgresUrl } from '@memstream/embedded-postgres';
import { startHealthy, type EmbeddedProcess } from '../../harness/embedded-process.js';

export interface EmbeddedDataDir {
  /** The temporary folder made for the test (DATA_DIR itself, or the folder it lies in). */
  readonly folder: string;
  readonly dataDir: string;
  /** The embedded mode on this DATA_DIR, healthy: `env` is added to the one given for every start. */
  start(env?: Record<string, string>, nodeArgs?: readonly string[]): Promise<EmbeddedProcess>;
  /** A connected client of the PostgreSQL server of whichever process runs now. */
  database(): Promise<pg.Client>;
}

/**
 * One DATA_DIR that outlives the processes of the embedded mode started on it, each as `npm start`
 * runs it and in a process group of its own (harness/embedded-process.ts): a crash test kills one
 * with `crash()` (SIGKILL to the whole group, its PostgreSQL too, as the OOM killer or a power cut
 * would) and starts the next on what it left. When the test ends every process started is stopped,
 * then the folder removed, in one hook: a server still running would write into a folder being removed.
 */
export async function embeddedDataDir(
  t: TestContext,
  o: { prefix: string; env?: Record<string, string>; dataDirIn?: readonly string[] },
): Promise<EmbeddedDataDir> {
  const folder = await mkdtemp(join(tmpdir(), o.prefix));
  const dataDir = join(folder, ...(o.dataDirIn ?? []));
  const started: EmbeddedProcess[] = [];
  t.after(async () => {
    for (const proc of started) await proc.stop();
    await rm(folder, { recursive: true, force: true });
  });
  return {
    folder,
    dataDir,
    start: async (env = {}, nodeArgs = []) =>
      (await startHealthy({ dataDir, env: { ...o.env, ...env }, nodeArgs }, (proc) => started.push(proc))).proc,
    async database() {
      const db = new pg.Client({ connectionString: embeddedPostgresUrl(join(dataDir, 'postgres')) });
      db.on('error', () => undefined); // its server dies with the process group
      await db.connect();
      return db;
    },
  };
}
