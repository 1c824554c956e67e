import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { TestContext } from 'node:test';
import { sourceFiles, staleReason, type SourceFile } from '../scripts/build/sources.js';
import { layoutEnv } from './store-layout.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

export interface RunningProcess {
  readonly child: ChildProcess;
  /** Every JSON log line the process wrote to stdout so far. */
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  hasLogged(msg: string): boolean;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL to its whole process group; resolves once no process of the group is left. */
  crash(): Promise<void>;
}

/** A process `launch` started: the leader of a process group of its own. */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  /** Also the process group's id. */
  readonly pid: number;
  /** Resolves with the exit code, or the signal's name, whenever the leader ends. */
  readonly exited: Promise<number | string | null>;
  /** The last lines it wrote (stdout and stderr), for a failure message. */
  tail(): string;
  /** True once stop() or crash() was called: an exit after that is the expected one. */
  readonly stopping: boolean;
  /** SIGTERM to the group, SIGKILL if it outlives `deadlineMs`; resolves once no process of the group is left. */
  stop(deadlineMs?: number): Promise<void>;
  /** SIGKILL to the whole group: a crash, no shutdown; resolves once no process of the group is left. */
  crash(): Promise<void>;
}

const TAIL_LINES = 60;

/**
 * The one launcher of tests and benchmarks: starts `command` from the repository root with
 * exactly the environment given plus PATH, HOME and the suite's store layout (an inherited
 * KAFKA_BROKERS or DATABASE_URL would quietly turn a process meant to run embedded into the
 * distributed mode), as the leader of a new process group (`detached`), so that stopping or
 * crashing it reaches everything it started: an embedded-mode process has a PostgreSQL server
 * beside it, which must be gone before a caller removes its DATA_DIR.
 */
export function launch(command: string, args: readonly string[], env: Record<string, string>): LaunchedProcess {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...layoutEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  const pid = child.pid;
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0),
    );
    if (lines.length > TAIL_LINES) lines.splice(0, lines.length - TAIL_LINES);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | string | null>((res) => child.on('exit', (code, signal) => res(code ?? signal)));
  let gone = false;
  void exited.then(() => (gone = true));
  let stopping = false;

  return {
    child,
    pid,
    exited,
    tail: () => lines.join('\n'),
    get stopping() {
      return stopping;
    },
    async crash() {
      stopping = true;
      signalGroup(pid, 'SIGKILL');
      await exited;
      await groupGone(pid);
    },
    async stop(deadlineMs = 30_000) {
      stopping = true;
      if (gone) {
        signalGroup(pid, 'SIGKILL'); // descendants the leader left behind, if any
        return groupGone(pid);
      }
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), deadlineMs);
      await exited;
      clearTimeout(timer);
      await groupGone(pid);
    },
  };
}

/** The sources and their build outputs (scripts/build), and whether the build was made current. */
let build: { files: SourceFile[]; checked: boolean } | undefined;

/**
 * A package's TypeScript entry point (`services/api/src/main-gateway.ts`) as the node arguments
 * that run its compiled build, as `npm start` and the image do (`--conditions=memstream-dist`).
 * The build is compiled first when a source changed since (checked once per test process, as
 * scripts/start.js checks it). A process started from the build spends about 0.75 s of CPU
 * loading against tsx's 1.9 s, and the distributed tests and the fault suite start hundreds.
 * Any other entry runs through tsx.
 */
function compiledOrTsx(entry: string): readonly string[] {
  build ??= { files: sourceFiles(), checked: false };
  const file = build.files.find((f) => f.src === entry);
  if (!file) return ['--import', 'tsx', resolve(REPO_ROOT, entry)];
  if (!build.checked) {
    if (staleReason(build.files) !== undefined) {
      const made = spawnSync(process.execPath, [resolve(REPO_ROOT, 'scripts/build/build.js')], { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`the build failed: ${made.stderr}`);
    }
    build.checked = true;
  }
  return ['--conditions=memstream-dist', '--enable-source-maps', resolve(REPO_ROOT, file.out)];
}

/**
 * Starts a package's entry point from its compiled build (see compiledOrTsx), or the entry as
 * given after other node arguments when they are given, through `launch`, and kills its whole
 * process group, waiting until it is gone, when the test ends.
 */
export function startProcess(
  t: TestContext,
  entry: string,
  env: Record<string, string>,
  { nodeArgs, args = [] }: { nodeArgs?: readonly string[]; args?: readonly string[] } = {},
): RunningProcess {
  const command = nodeArgs === undefined ? compiledOrTsx(entry) : [...nodeArgs, resolve(REPO_ROOT, entry)];
  const proc = launch(process.execPath, [...command, ...args], {
    LOG_LEVEL: 'info',
    ...env,
  });
  const { child } = proc;
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
  t.after(() => proc.crash());
  return {
    child,
    lines,
    exited,
    hasLogged: (msg) => lines.some((l) => l['msg'] === msg),
    stderr: () => stderr,
    crash: () => proc.crash(),
  };
}

/** The process exited because another one had taken its port first (see listensOn). */
export class PortTaken extends Error {}

/**
 * Polls GET `base`/health until the process answers 200 and resolves with the milliseconds since
 * `since` (performance.now() at spawn: the time to healthy). An answer counts only when the port
 * is this process's own: another server on it is waited out. Fails at once, with its last lines,
 * if the process exits first (with PortTaken when it could not bind), and after `timeoutMs`.
 */
export async function untilHealthy(
  proc: Pick<LaunchedProcess, 'pid' | 'exited' | 'tail'>,
  base: string,
  { name, since = performance.now(), timeoutMs = 120_000 }: { name: string; since?: number; timeoutMs?: number },
): Promise<number> {
  let exit: string | undefined;
  void proc.exited.then((code) => (exit = String(code)));
  const port = Number(new URL(base).port);
  while (performance.now() - since < timeoutMs) {
    if (exit !== undefined) {
      const message = `${name} exited (${exit}) before it was healthy:\n${proc.tail()}`;
      throw proc.tail().includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
    }
    const ok = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false, // not listening yet
    );
    if (ok && listensOn(proc.pid, port)) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} was not healthy after ${timeoutMs} ms:\n${proc.tail()}`);
}

/** How a service is started and how long it may take to answer /health. */
export interface ServeOptions {
  readonly timeoutMs?: number;
  readonly nodeArgs?: readonly string[];
  /** The entry's arguments; a function of the port for one told its port by a flag rather than PORT. */
  readonly args?: readonly string[] | ((port: string) => readonly string[]);
  /** Sees each process as it is started, before it is healthy: to say, if it never is, what it said. */
  readonly started?: (serving: Serving) => void;
}

/** A service answering /health from a port it listens on itself. */
export interface Serving {
  readonly base: string;
  readonly proc: RunningProcess;
}

/**
 * Starts an entry point (as startProcess) on a free port of its own and resolves once it answers
 * /health from that port: a port another server took first (freePort only finds a port free now,
 * and test files run side by side) is never mistaken for it, and an exit on EADDRINUSE starts it
 * again on another port, up to three times.
 */
export async function startServing(
  t: TestContext,
  entry: string,
  env: Record<string, string>,
  options: ServeOptions = {},
): Promise<Serving> {
  for (let attempt = 1; ; attempt++) {
    const base = `http://127.0.0.1:${await freePort()}`;
    const proc = startOn(t, entry, env, base, options);
    try {
      await untilServing(proc, base, entry, options.timeoutMs);
      return { base, proc };
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
      await proc.crash();
    }
  }
}

/**
 * Starts an entry point again on the port of `base`, where an earlier process of it served (an
 * orchestrator's restart: others hold the address), and resolves once this process answers
 * /health from that port. Another server that took the port meanwhile is never taken for it: the
 * start fails with PortTaken instead.
 */
export async function restartServing(
  t: TestContext,
  entry: string,
  env: Record<string, string>,
  base: string,
  options: ServeOptions = {},
): Promise<RunningProcess> {
  const proc = startOn(t, entry, env, base, options);
  try {
    await untilServing(proc, base, entry, options.timeoutMs);
    return proc;
  } catch (err) {
    if (!(err instanceof PortTaken)) throw err;
    throw new PortTaken(`${entry} could not listen on ${base} again, another process took the port: ${err.message}`);
  }
}

function startOn(
  t: TestContext,
  entry: string,
  env: Record<string, string>,
  base: string,
  { nodeArgs, args = [], started }: ServeOptions,
): RunningProcess {
  const port = new URL(base).port;
  const proc = startProcess(
    t,
    entry,
    { ...env, PORT: port },
    {
      ...(nodeArgs ? { nodeArgs } : {}),
      args: typeof args === 'function' ? args(port) : args,
    },
  );
  started?.({ base, proc });
  return proc;
}

async function untilServing(proc: RunningProcess, base: string, name: string, timeoutMs = 90_000): Promise<void> {
  const watched = {
    pid: proc.child.pid!,
    // 'close' comes after the last output, so an EADDRINUSE it printed is in the tail
    exited: new Promise<number | null>((res) => proc.child.once('close', (code) => res(code))),
    tail: () => [...proc.lines.slice(-20).map((l) => JSON.stringify(l)), proc.stderr().slice(-4000)].join('\n'),
  };
  await untilHealthy(watched, base, { name, timeoutMs });
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
export function runCaptured(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<CapturedRun> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
