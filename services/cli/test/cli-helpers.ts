import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { credentialsFor } from '../../../harness/credentials.js';
import { runCaptured, startServing, REPO_ROOT } from '../../../harness/processes.js';
import type { StoredMemory } from '../../../test/helpers/evermemos-client.js';

export { REPO_ROOT };

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `memstream` as a user would, in its own process, so exit codes and both streams are real. */
export function memstream(...args: string[]): Promise<CliRun> {
  return memstreamWithEnv({}, ...args);
}

/**
 * `memstream` with `env` added to this process's environment, less any credentials the shell
 * running the tests exported: a test says which credentials the CLI has, or it has none.
 */
export function memstreamWithEnv(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const inherited = { ...process.env };
  delete inherited['MEMSTREAM_API_KEY'];
  delete inherited['MEMSTREAM_TOKEN'];
  return runCaptured(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'services/cli/src/main.ts'), ...args], {
    env: { ...inherited, ...env },
  });
}

/** The last stdout line of an import: its JSON summary. */
export function summaryOf(run: CliRun): Record<string, number> {
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, number>;
  } catch {
    assert.fail(`no JSON summary on stdout (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

export async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The embedded mode (`npm start`) in its own process on a free port with its own PostgreSQL server. A
 * process, not startEmbedded in this one: a service package may not import another service. `env`
 * adds settings (authentication, say).
 */
export async function startEmbeddedService(t: TestContext, env: Record<string, string> = {}): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-cli-'));
  try {
    const { base } = await startServing(t, 'services/all-in-one/src/main.ts', {
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...env,
    });
    return base;
  } finally {
    // Registered after the processes' own hooks (node:test runs them in that order): the folder
    // goes once each process group, its PostgreSQL server included, is gone.
    t.after(() => rm(dataDir, { recursive: true, force: true }));
  }
}

/** Every stored message of a group, oldest first (the API pages newest first, 500 at most). */
export async function allMessages(base: string, groupId: string): Promise<StoredMemory[]> {
  const out: StoredMemory[] = [];
  for (let offset = 0; ; offset += 500) {
    const res = await fetch(
      `${base}/api/v1/memories?group_id=${encodeURIComponent(groupId)}&limit=500&offset=${offset}`,
      { headers: credentialsFor(base) },
    );
    assert.equal(res.status, 200);
    const { result } = (await res.json()) as { result: { memories: StoredMemory[]; has_more: boolean } };
    out.push(...result.memories);
    if (!result.has_more) break;
  }
  return out.sort((a, b) => a.sequence - b.sequence);
}

export async function conversationMeta(
  base: string,
  groupId: string,
): Promise<{ status: number; result: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/v1/memories/conversation-meta?group_id=${encodeURIComponent(groupId)}`, {
    headers: credentialsFor(base),
  });
  const body = (await res.json()) as { result?: Record<string, unknown> };
  return { status: res.status, result: body.result ?? {} };
}
