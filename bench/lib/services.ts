import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { launch, REPO_ROOT, untilHealthy, type LaunchedProcess } from '../../harness/processes.js';

export interface ServiceProcess extends LaunchedProcess {
  readonly name: string;
  readonly port: number;
}

export interface StartOptions {
  readonly name: string;
  /** A TypeScript entry run through tsx, or, with `compiled`, the service name `scripts/start.js` runs as `npm run start:<service>` does. */
  readonly entry: string;
  readonly compiled?: boolean;
  readonly env: Record<string, string>;
  /** Set to write a V8 CPU profile of the process into this folder when it exits. */
  readonly profileDir?: string;
  /** Node and V8 flags before the entry (V8's own, such as `--no-flush-bytecode`, are refused in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
}

/**
 * Starts a service the way `npm run start:<svc>` does, in a process group of its own (harness's
 * `launch`), with exactly the environment given plus PATH and HOME: nothing the benchmark's shell
 * exported leaks in.
 */
export function startService(options: StartOptions): ServiceProcess {
  const flags: string[] = [...(options.nodeArgs ?? [])];
  if (options.profileDir) {
    mkdirSync(options.profileDir, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${options.profileDir}`);
  }
  const args = options.compiled
    ? [
        '--conditions=memstream-dist',
        '--enable-source-maps',
        ...flags,
        resolve(REPO_ROOT, 'scripts/start.js'),
        options.entry,
      ]
    : ['--import', 'tsx', ...flags, resolve(REPO_ROOT, options.entry)];
  const proc = launch(process.execPath, args, options.env);
  return Object.assign(proc, { name: options.name, port: Number(options.env['PORT']) });
}

/** Waits until the service answers GET /health on its own port; fails early, with its last lines, if it dies. */
export async function waitHealthy(service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  await untilHealthy(service, `http://127.0.0.1:${service.port}`, { name: service.name, timeoutMs });
}
