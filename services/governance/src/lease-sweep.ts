import type { Logger } from '@memstream/logging';

type LogLines = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
/** What the runners log through: a pino logger, or a fastify instance's. */
export type RunnerLog = LogLines & { child(bindings: Record<string, unknown>): LogLines };

/**
 * One kind of governance work. Every kind keeps its work in the database under a lease (a job
 * row's `lease_owner` and `leased_until`, or a named row of `job_leases`): whoever takes it holds
 * it while it renews the lease with each batch, and once a holder dies the lease runs out and the
 * next sweep, in this process or another replica, takes the work over where it stopped.
 */
export interface SweptWork {
  /** Named in log lines and in the list of what the process runs. */
  readonly name: string;
  /** From the end of one sweep to the start of the next, plus up to a tenth more at random. */
  readonly everyMs: number;
  /**
   * Takes and runs one piece of work nobody holds; true when it ran one (the sweep then looks for
   * the next at once), false when there was none. A failure ends the sweep; the work's lease lets
   * the next sweep take it again.
   */
  readonly takeOne: (signal: AbortSignal) => Promise<boolean>;
}

export interface LeaseSweeps {
  /** The names of the work swept, in the order given. */
  readonly running: readonly string[];
  /** Sweeps `name` now (someone asked for work of its kind), or again at once after the sweep in progress. */
  wake(name: string): void;
  /** Stops every schedule, aborts the sweeps in progress and waits for them (their work stops between two batches). */
  stop(): Promise<void>;
}

/**
 * The governance worker's one runner: each kind of work swept on its own schedule, never two
 * sweeps of a kind at once, the timers unreferenced (what stops them is `stop()`).
 */
export function startLeaseSweeps(works: readonly SweptWork[], log: Pick<Logger, 'warn' | 'debug'>): LeaseSweeps {
  const abort = new AbortController();
  const sweeps = new Map(works.map((w) => [w.name, sweepOf(w, abort.signal, log)]));
  return {
    running: works.map((w) => w.name),
    wake(name) {
      const sweep = sweeps.get(name);
      if (!sweep) throw new Error(`no governance work named ${name}`);
      sweep.now();
    },
    async stop() {
      abort.abort(new Error('governance stopped'));
      await Promise.all([...sweeps.values()].map((s) => s.stopped()));
    },
  };
}

function sweepOf(work: SweptWork, signal: AbortSignal, log: Pick<Logger, 'warn' | 'debug'>) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const schedule = () => {
    if (signal.aborted) return;
    timer = setTimeout(now, work.everyMs + Math.floor(Math.random() * (work.everyMs / 10))).unref();
  };
  const sweep = async () => {
    try {
      while (!signal.aborted && (await work.takeOne(signal)));
    } catch (err) {
      if (signal.aborted) log.debug({ err, job: work.name }, 'sweep ended by the stop');
      else log.warn({ err, job: work.name }, 'sweep failed; the work is taken again at the next one');
    }
  };
  function now(): void {
    clearTimeout(timer);
    timer = undefined;
    if (signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = sweep().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        now();
      } else schedule();
    });
  }
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  schedule();
  return { now, stopped: async () => void (await running) };
}

/**
 * Runs work outside the database while renewing its lease a few times per lease, so that work
 * that waits (the transport's, for consumer groups to pass a topic) is not taken over by another
 * worker meanwhile. The lease still runs out if this process dies.
 */
export async function keepingLease<T>(
  renew: () => Promise<unknown>,
  leaseMs: number,
  log: Pick<LogLines, 'warn'>,
  work: () => Promise<T>,
): Promise<T> {
  const timer = setInterval(
    () => void renew().catch((err: unknown) => log.warn({ err }, 'lease not renewed')),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * After a try of a leased job failed: the job is ended as failed once it had `maxAttempts` tries,
 * else left to its lease, which runs out so that a sweep takes it again where it stopped. Throws
 * the failure on, either way.
 */
export async function settleFailedTry(o: {
  readonly what: string;
  readonly err: unknown;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly log: Pick<LogLines, 'error' | 'warn'>;
  readonly failForGood: () => Promise<unknown>;
  readonly noteRetry?: () => Promise<unknown>;
}): Promise<never> {
  if (o.attempts >= o.maxAttempts) {
    o.log.error({ err: o.err }, `${o.what} job failed for good`);
    await o.failForGood();
  } else {
    await o.noteRetry?.().catch((e: unknown) => o.log.warn({ err: e }, `${o.what} reason not kept`));
    o.log.error({ err: o.err, attempts: o.attempts }, `${o.what} job failed; it will be tried again`);
  }
  throw o.err;
}
