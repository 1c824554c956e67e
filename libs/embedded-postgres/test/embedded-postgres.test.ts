import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@memstream/logging';
import { embeddedPostgresOf } from '@memstream/embedded-postgres';
import { openStore, type Store } from '@memstream/store';

const log = createLogger({ service: 'embedded-postgres-test', level: 'silent' });
const settings = (dataDir: string) => ({
  DATABASE_URL: undefined,
  DATABASE_POOL_MAX: 4,
  DATABASE_STATEMENT_TIMEOUT_MS: 10_000,
  DATA_DIR: dataDir,
});

async function postmasterPid(dataDir: string): Promise<number> {
  const pidFile = await readFile(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8');
  return Number(pidFile.split('\n')[0]);
}

function alive(pid: number): boolean {
  if (pid <= 0) return false; // kill(0) would name our own process group
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `check` every 50 ms until it holds; fails with `what` after `limitMs`. */
async function until(what: string, check: () => Promise<boolean> | boolean, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${limitMs} ms`);
    await sleep(50);
  }
}

test('the embedded PostgreSQL is started again when it dies, and what was committed is still there', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-embedded-pg-'));
  const store: Store = await openStore(settings(dataDir), log, embeddedPostgresOf(settings(dataDir)));
  // One hook, in this order: the server writes into the folder until it has stopped. The killed
  // server's own children notice their parent's death a moment later and may still be writing
  // (CI once saw ENOTEMPTY under data/global), so the removal retries for up to two seconds.
  t.after(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });
  await store.query('CREATE TABLE kept (n int)');
  await store.query('INSERT INTO kept VALUES (1)');

  const first = await postmasterPid(dataDir);
  process.kill(first, 'SIGKILL');
  await until(
    'a new server',
    async () => alive(first) === false && (await postmasterPid(dataDir).catch(() => first)) !== first,
  );
  await until('the store answering again', () =>
    store.ping().then(
      () => true,
      () => false,
    ),
  );
  const { rows } = await store.query<{ n: number }>('SELECT n FROM kept');
  assert.deepEqual(rows, [{ n: 1 }]);
});

test('a server whose owner was SIGKILLed stops by itself, and the next start on the folder succeeds', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-embedded-pg-'));
  let store: Store | undefined;
  // One hook, in this order: the owner and its server first, then the folder they write into.
  t.after(async () => {
    owner.kill('SIGKILL');
    await store?.close();
    await until('no server left on the folder', async () => !alive(await postmasterPid(dataDir).catch(() => 0)));
    await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });
  // The owner is a process of its own, so it can be killed without taking the test with it.
  const owner = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { openStore } from '@memstream/store';
       import { embeddedPostgresOf } from '@memstream/embedded-postgres';
       import { createLogger } from '@memstream/logging';
       const settings = ${JSON.stringify(settings(dataDir))};
       const store = await openStore(settings, createLogger({ service: 'owner', level: 'silent' }), embeddedPostgresOf(settings));
       await store.query('CREATE TABLE kept (n int)');
       await store.query('INSERT INTO kept VALUES (7)');
       console.log('ready');
       setInterval(() => undefined, 1000);`,
    ],
    { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((ready, failed) => {
    owner.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && ready());
    owner.once('exit', (code) => failed(new Error(`the owner exited (${code}) before it was ready`)));
  });
  const server = await postmasterPid(dataDir);
  assert.ok(alive(server));

  owner.kill('SIGKILL');
  await until('the orphaned server to stop', () => !alive(server));

  store = await openStore(settings(dataDir), log, embeddedPostgresOf(settings(dataDir)));
  const { rows } = await store.query<{ n: number }>('SELECT n FROM kept');
  assert.deepEqual(rows, [{ n: 7 }]);
});
