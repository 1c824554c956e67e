import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { TestContext } from 'node:test';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

export interface RunningProcess {
  readonly child: ChildProcess;
  /** Every JSON log line the process wrote to stdout so far. */
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  hasLogged(msg: string): boolean;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

/**
 * Starts an entry point (TypeScript through tsx unless other node arguments are given: the
 * compiled build's, say) with exactly the environment given (plus PATH and HOME): inherited
 * KAFKA_BROKERS or DATABASE_URL must not leak into a process meant to run embedded. It leads a
 * process group of its own, and when the test ends the whole group is killed and waited for: an
 * embedded-mode process has a PostgreSQL server beside it, which must be gone before the test
 * removes its DATA_DIR.
 */
export function startProcess(
  t: TestContext,
  entry: string,
  env: Record<string, string>,
  { nodeArgs = ['--import', 'tsx'], args = [] }: { nodeArgs?: readonly string[]; args?: readonly string[] } = {},
): RunningProcess {
  const child = spawn(process.execPath, [...nodeArgs, resolve(REPO_ROOT, entry), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ msg: line });
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((res) =>
    child.on('exit', (code) => {
      if (code !== 0 && stderr) process.stderr.write(`[${entry}] ${stderr.slice(-4000)}\n`);
      res(code);
    }),
  );
  t.after(async () => {
    if (child.pid === undefined) return;
    signalGroup(child.pid, 'SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await exited;
    await groupGone(child.pid);
  });
  return { child, lines, exited, hasLogged: (msg) => lines.some((l) => l['msg'] === msg), stderr: () => stderr };
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => res(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Whether process `pid` holds the socket listening on TCP `port` (Linux: the socket's inode in
 * /proc/net/tcp{,6} against the process's descriptors). freePort() hands out a port that is free
 * now; test files run in parallel, so another file's server can bind it before the process this
 * one started does, and a health check on the port would then be answered by the wrong server.
 */
export function listensOn(pid: number, port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 on this machine
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; the inode is the tenth column
      if (cols.length > 9 && cols[1]!.endsWith(`:${hexPort}`) && cols[3] === '0A') inodes.add(cols[9]!);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // the process is gone
  }
  return fds.some((fd) => {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      return target.startsWith('socket:[') && inodes.has(target.slice(8, -1));
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** A signal to every process of the group `pgid` leads; none left (ESRCH) is what it was for. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * Resolves once no process of the group is left: the leader's exit is not the end of the embedded
 * PostgreSQL, whose processes finish their own shutdown (or die of the same SIGKILL) a moment
 * later, and a restart or a removal of DATA_DIR must not overlap them.
 */
export async function groupGone(pgid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw err;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What a finished command printed, and its exit code. */
export interface CapturedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end from the repository root, capturing both streams. */
export function runCaptured(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CapturedRun> {
  const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
