import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { request } from 'undici';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) whenever the process ends. */
  readonly exited: Promise<number | string | null>;
  /** The last lines it wrote, for a report when it dies. */
  tail(): string;
  /** SIGTERM, then SIGKILL if it has not exited by the deadline; resolves once it is gone. */
  stop(deadlineMs?: number): Promise<number | string | null>;
  /** True once stop() was called: an exit after that is the expected one. */
  readonly stopping: boolean;
}

export interface StartOptions {
  readonly name: string;
  /** A TypeScript entry run through tsx, or, with `compiled`, the service name `scripts/start.js` runs as `npm run start:<service>` does. */
  readonly entry: string;
  readonly compiled?: boolean;
  readonly env: Record<string, string>;
  /** Set to write a V8 CPU profile of the process into this folder when it exits. */
  readonly profileDir?: string;
}

/**
 * Starts a service the way `npm run start:<svc>` does, in its own process, with exactly the
 * environment given plus PATH and HOME: nothing the benchmark's shell exported leaks in.
 */
export function startService(options: StartOptions): ServiceProcess {
  const nodeArgs = ['--import', 'tsx'];
  if (options.profileDir) {
    mkdirSync(options.profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.profileDir}`);
  }
  const command = options.compiled
    ? ['--conditions=memstream-dist', '--enable-source-maps', ...nodeArgs.slice(2), resolve(REPO_ROOT, 'scripts/start.js'), options.entry]
    : [...nodeArgs, resolve(REPO_ROOT, options.entry)];
  const child = spawn(process.execPath, command, {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.name}`);
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | string | null>((res) => child.on('exit', (code, signal) => res(code ?? signal)));
  const port = Number(options.env['PORT']);
  let stopping = false;

  return {
    name: options.name,
    pid: child.pid,
    port,
    child,
    exited,
    tail: () => lines.join('\n'),
    get stopping() {
      return stopping;
    },
    async stop(deadlineMs = 20_000) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls GET /health until it answers 200; fails early, with the process's last lines, if it dies. */
export async function waitHealthy(service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void service.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died) throw new Error(`${service.name} exited during start-up:\n${service.tail()}`);
    try {
      const res = await request(`http://127.0.0.1:${service.port}/health`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet: try again below
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service.name} not healthy after ${timeoutMs} ms:\n${service.tail()}`);
}

