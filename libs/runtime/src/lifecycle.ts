import type { Logger } from '@memstream/logging';

export interface LifecycleOptions {
  readonly log: Logger;
  /** One deadline for the whole shutdown, every teardown included. */
  readonly shutdownTimeoutMs: number;
  /** Injected so tests can observe the exit instead of losing the test process. */
  readonly exit?: (code: number) => void;
}

type Teardown = { readonly name: string; readonly fn: () => Promise<void> };

/**
 * The one lifecycle runner of a process. Register a teardown right after acquiring each resource;
 * on SIGTERM/SIGINT readiness flips first (load balancers stop sending), then teardowns run one at
 * a time in reverse order (the HTTP server stops taking requests, consumers finish and commit,
 * clients close), all under one deadline. A second signal forces the exit.
 */
export class Lifecycle {
  private readonly teardowns: Teardown[] = [];
  private isReady = false;
  private isStopping = false;
  private shuttingDown: Promise<number> | undefined;
  private readonly exit: (code: number) => void;

  constructor(private readonly options: LifecycleOptions) {
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  /** Registers a teardown; they run last-registered first. */
  defer(name: string, fn: () => Promise<void>): void {
    this.teardowns.push({ name, fn });
  }

  /**
   * Acquires a resource and registers its release in one step, so no composition root can open
   * something and forget to close it: `const store = await lifecycle.own('store', () => openStore(c, log), (s) => s.close())`.
   */
  async own<T>(name: string, acquire: () => T | Promise<T>, release: (resource: T) => Promise<void>): Promise<T> {
    const resource = await acquire();
    this.defer(name, () => release(resource));
    return resource;
  }

  markReady(): void {
    this.isReady = true;
  }

  get ready(): boolean {
    return this.isReady && !this.isStopping;
  }

  get stopping(): boolean {
    return this.isStopping;
  }

  /** Installs SIGTERM and SIGINT handlers that shut down and exit. */
  handleSignals(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.isStopping) {
        this.options.log.warn({ signal }, 'second signal, exiting now');
        this.exit(1);
        return;
      }
      this.options.log.info({ signal }, 'shutting down');
      void this.shutdown().then((code) => this.exit(code));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  /** Runs every teardown once; resolves 0 when all finished in time and without error, else 1. */
  shutdown(): Promise<number> {
    // Set before any teardown starts: the first one runs synchronously inside runTeardowns(),
    // before `??=` would have assigned, and readiness must already read false by then.
    this.isStopping = true;
    this.shuttingDown ??= this.runTeardowns();
    return this.shuttingDown;
  }

  private async runTeardowns(): Promise<number> {
    const { log, shutdownTimeoutMs } = this.options;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      // Not unref'd: a teardown stuck on a promise must still end in the deadline's exit code.
      timer = setTimeout(() => resolve('deadline'), shutdownTimeoutMs);
    });
    let failed = false;
    const all = (async () => {
      for (const t of [...this.teardowns].reverse()) {
        try {
          await t.fn();
          log.debug({ resource: t.name }, 'closed');
        } catch (err) {
          failed = true;
          log.error({ err, resource: t.name }, 'teardown failed');
        }
      }
    })();
    const outcome = await Promise.race([all.then(() => 'done' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'deadline') {
      log.error({ shutdownTimeoutMs }, 'shutdown deadline passed, exiting with work unfinished');
      return 1;
    }
    log.info({ durationMs: Date.now() - started }, 'shutdown complete');
    return failed ? 1 : 0;
  }
}
