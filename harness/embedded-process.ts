import { freePort, launch, PortTaken, untilHealthy, type LaunchedProcess } from './processes.js';

/**
 * What `npm start` runs, from the repository root: the one place to change when `npm start`
 * changes (the crash test checks that the two still agree). Tests and benchmarks that must run
 * the embedded mode as a user does, in a process of its own, start it through here.
 */
export function embeddedCommand(): {
  readonly command: string;
  readonly args: readonly string[];
  readonly asWritten: string;
} {
  const args = ['--conditions=memstream-dist', '--enable-source-maps', 'scripts/start.js', 'all-in-one'];
  return { command: process.execPath, args, asWritten: `node ${args.join(' ')}` };
}

export interface EmbeddedProcess extends LaunchedProcess {
  readonly base: string;
  readonly dataDir: string;
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
 * Starts the embedded mode as `npm start` does, through `launch` (a process group of its own, so
 * a crash can kill everything it started at once, as the kernel's OOM killer or a power cut
 * would). Only PATH, HOME, PORT, HOST, DATA_DIR and LOG_LEVEL are set.
 */
export function startEmbeddedProcess(options: EmbeddedOptions): EmbeddedProcess {
  const { command, args } = embeddedCommand();
  const proc = launch(command, [...(options.nodeArgs ?? []), ...args], {
    PORT: String(options.port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'warn',
    ...options.env,
  });
  return Object.assign(proc, { base: `http://127.0.0.1:${options.port}`, dataDir: options.dataDir });
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
      return { proc, healthyMs: await untilHealthy(proc, proc.base, { name: 'the embedded process', since }) };
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}
