/**
 * `npm start` runs the compiled build, as package.json says to run it: the launcher compiles what
 * changed, then the embedded mode serves from dist/ in the launcher's own process, with no tsx,
 * no esbuild and no TypeScript file loaded in any of its threads (a resolve hook, the tripwire,
 * fails any such import and says so on stderr).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { descendantsOf } from '../bench/lib/process-memory.js';
import { REPO_ROOT, startServing, type RunningProcess } from '../harness/processes.js';

const TRIPWIRE = join(REPO_ROOT, 'test/helpers/typescript-tripwire.mjs');
const CHANGED_SOURCE = 'services/api/src/run-api.ts';

/** `npm start`'s command, split: node's flags, the entry, the entry's arguments. */
async function startCommand(): Promise<{ nodeArgs: string[]; entry: string; args: string[] }> {
  const { scripts } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [node, ...rest] = scripts['start']!.split(/\s+/);
  assert.equal(node, 'node');
  const entryAt = rest.findIndex((word) => !word.startsWith('-'));
  return { nodeArgs: rest.slice(0, entryAt), entry: rest[entryAt]!, args: rest.slice(entryAt + 1) };
}

/** Polls until `condition` holds. No deadline: a process that exits fails the wait at once, with what it wrote. */
async function whileRunning<T>(p: RunningProcess, label: string, condition: () => Promise<T | undefined>): Promise<T> {
  const died = p.exited.then((code) => {
    throw new Error(`exited (${code}) while waiting for ${label}: ${p.stderr().slice(-2000)}`);
  });
  const poll = async () => {
    for (let delay = 20; ; delay = Math.min(500, delay * 2)) {
      const value = await condition().catch(() => undefined);
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
  return Promise.race([poll(), died]);
}

async function call<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

test('npm start compiles what changed, then serves from dist/ in its own process with no tsx, esbuild or TypeScript loaded', async (t) => {
  const build = spawnSync(process.execPath, ['scripts/build/build.js'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  // Content unchanged, mtime now: the launcher must see it as changed and compile it, and only it.
  const now = new Date();
  await utimes(join(REPO_ROOT, CHANGED_SOURCE), now, now);

  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-compiled-'));
  const { nodeArgs, entry, args } = await startCommand();
  // The folder's removal is registered after the process's own hook: the process is gone by then.
  const { base, proc: server } = await startServing(
    t,
    entry,
    { DATA_DIR: dataDir, KAFKA_BROKERS: '', DATABASE_URL: '', REDIS_URL: '', EMBEDDING_PROVIDER: 'local' },
    { nodeArgs: ['--import', TRIPWIRE, ...nodeArgs], args, timeoutMs: 300_000 },
  ).finally(() => t.after(() => rm(dataDir, { recursive: true, force: true })));
  assert.match(server.stderr(), new RegExp(`${CHANGED_SOURCE.replaceAll('.', '\\.')} changed: compiling before start`));
  assert.match(server.stderr(), /\[build\] 1 of \d+ files compiled/);

  const message = {
    group_id: 'compiled',
    message_id: 'm1',
    create_time: '2025-01-15T10:00:00Z',
    sender: 'ann',
    content: 'The compiled build stores this message',
  };
  assert.equal((await call(base, 'POST', '/api/v1/memories', message)).status, 200);
  const read = await call<{ result: { memories: Array<{ content: string }> } }>(
    base,
    'GET',
    '/api/v1/memories?group_id=compiled',
  );
  assert.equal(read.status, 200);
  assert.deepEqual(
    read.body.result.memories.map((m) => m.content),
    [message.content],
  );

  // A vector search embeds its query: the model loads, in the worker thread, from dist/ too.
  const search = await call(base, 'POST', '/api/v1/memories/search', {
    query: 'stored message',
    group_id: 'compiled',
    retrieve_method: 'vector',
    memory_types: ['message'],
  });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  await whileRunning(server, 'the model to load', async () =>
    server.hasLogged('local embedding model loaded') ? true : undefined,
  );

  // The server is the launcher's own process (a kill of the process group reaches it) and has no
  // esbuild service beside it.
  const children = descendantsOf(server.child.pid!).map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
  assert.ok(children.includes('postgres'), `the embedded PostgreSQL runs beside it: ${children.join(', ')}`);
  assert.deepEqual(
    children.filter((command) => command === 'node' || command === 'esbuild'),
    [],
  );
  assert.doesNotMatch(server.stderr(), /TYPESCRIPT-TRIPWIRE/);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
