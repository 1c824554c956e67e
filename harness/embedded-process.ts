import { spawn } from 'node:child_process';
import { freePort, groupGone, listensOn, REPO_ROOT, signalGroup } from './processes.js';

/**
 * What `npm start` runs, from the repository root: the one place to change when `npm start`
 * changes (the crash test checks that the two still agree). Tests and benchmarks that must run
 * the embedded mode as a user does, in a process of its own, start it through here.
 */
export function embeddedCommand(): { readonly command: string; readonly args: readonly string[]; readonly asWritten: string } {
  const args = ['--conditions=memstream-dist', '--enable-source-maps', 'scripts/start.js', 'all-in-one'];
  return { command: process.execPath, args, asWritten: `node ${args.join(' ')}` };
}

export interface EmbeddedProcess {
  /** Also the process group's id: the process leads a group of its own. */
  readonly pid: number;
  readonly base: string;
  readonly dataDir: string;
  /** Resolves with the exit code, or the signal's name, whenever the process ends. */
  readonly exited: Promise<number | string | null>;
  /** The last lines it wrote, for a failure message. */
  tail(): string;
  /** SIGKILL to the whole group (the server and anything it started): a crash, no shutdown. */
  crash(): Promise<void>;
  /** SIGTERM to the group, SIGKILL if it outlives `deadlineMs`; resolves once the leader is gone. */
  stop(deadlineMs?: number): Promise<void>;
}

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly port: number;
  /** Added to the minimal environment; nothing else the caller's shell exported leaks in. */
  readonly env?: Record<string, string>;
  /** Node options before the launcher's own (`--cpu-prof` is refused in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
}

/**
 * Starts the embedded mode as `npm start` does, as the leader of a new process group
 * (`detached`), so a crash can kill everything it started at once, as the kernel's OOM killer or
 * a power cut would. Only PATH, HOME, PORT, HOST, DATA_DIR and LOG_LEVEL are set: an inherited
 * KAFKA_BROKERS, DATABASE_URL or REDIS_URL would quietly turn it into the distributed mode.
 */
export function startEmbeddedProcess(options: EmbeddedOptions): EmbeddedProcess {
  const { command, args } = embeddedCommand();
  const child = spawn(command, [...(options.nodeArgs ?? []), ...args], {
    cwd: REPO_ROOT,
    detached: true,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  const pid = child.pid;
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0));
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | string | null>((res) => child.on('exit', (code, signal) => res(code ?? signal)));
  let gone = false;
  void exited.then(() => (gone = true));

  return {
    pid,
    base: `http://127.0.0.1:${options.port}`,
    dataDir: options.dataDir,
    exited,
    tail: () => lines.join('\n'),
    async crash() {
      signalGroup(pid, 'SIGKILL');
      await exited;
      await groupGone(pid);
    },
    async stop(deadlineMs = 30_000) {
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

/** The process exited because another one had taken its port first (see listensOn). */
class PortTaken extends Error {}

/**
 * Polls GET /health until the process answers 200 and resolves with the milliseconds since
 * `since` (performance.now() at spawn: the time to healthy). An answer counts only when the port
 * is this process's own: another server on it is waited out. Fails at once, with its last lines,
 * if the process exits first (with PortTaken when it could not bind), and after `timeoutMs`.
 */
async function untilHealthy(proc: EmbeddedProcess, since: number, timeoutMs = 120_000): Promise<number> {
  let exit: string | undefined;
  void proc.exited.then((code) => (exit = String(code)));
  const port = Number(new URL(proc.base).port);
  while (performance.now() - since < timeoutMs) {
    if (exit !== undefined) {
      const message = `the embedded process exited (${exit}) before it was healthy:\n${proc.tail()}`;
      throw proc.tail().includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
    }
    const ok = await fetch(`${proc.base}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false, // not listening yet
    );
    if (ok && listensOn(proc.pid, port)) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the embedded process was not healthy after ${timeoutMs} ms:\n${proc.tail()}`);
}

/**
 * Starts the embedded mode on a free port and waits until it is healthy, on a fresh port again
 * (up to three times) when another process took the port between freePort() and the bind.
 * `started` sees every process started, so the caller can stop each one, failed or not.
 */
export async function startHealthy(
  options: Omit<EmbeddedOptions, 'port'>,
  started: (proc: EmbeddedProcess) => void = () => undefined,
): Promise<{ proc: EmbeddedProcess; healthyMs: number }> {
  for (let attempt = 1; ; attempt++) {
    const since = performance.now();
    const proc = startEmbeddedProcess({ ...options, port: await freePort() });
    started(proc);
    try {
      return { proc, healthyMs: await untilHealthy(proc, since) };
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}
