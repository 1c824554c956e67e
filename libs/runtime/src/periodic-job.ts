import type { Logger } from '@memstream/logging';

/** The time a job reads and the timers it sets; injected so a test moves time by hand. */
export interface JobClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface PeriodicJobOptions {
  /** Named in the log lines of its failures and in the lifecycle's teardown. */
  readonly name: string;
  /** From the start of one run to the start of the next, unless the run outlasts it. */
  readonly everyMs: number;
  /**
   * Up to this much is added to each wait at random, so replicas started together (each running
   * the same sweep against the same database) drift apart. Defaults to a tenth of `everyMs`.
   */
  readonly jitterMs?: number;
  readonly log: Pick<Logger, 'warn' | 'debug'>;
  /** When given, the lifecycle's shutdown stops the job, in its place among the other teardowns. */
  readonly lifecycle?: { defer(name: string, fn: () => Promise<void>): void };
  readonly clock?: JobClock;
  readonly random?: () => number;
}

export interface PeriodicJob {
  /** Ends the schedule, aborts the signal of a run in progress and waits for that run to end; idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `everyMs` (plus jitter), the first time one period after the start. Two runs
 * never overlap: the next wait is counted from the start of the previous run but begins only when
 * it ended, so a run that outlasts the period is followed at once, not piled on. A run that fails
 * is logged with `{ err }` and the schedule goes on. Timers do not keep the process up: what stops
 * the job is `stop()` or the lifecycle it was given.
 */
export function startPeriodicJob(
  options: PeriodicJobOptions,
  run: (signal: AbortSignal) => Promise<unknown>,
): PeriodicJob {
  const { name, everyMs, log } = options;
  const clock = options.clock ?? REAL_CLOCK;
  const random = options.random ?? Math.random;
  const jitterMs = options.jitterMs ?? Math.round(everyMs / 10);
  const abort = new AbortController();
  let timer: unknown;
  let running: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;

  const waitMs = () => everyMs + Math.floor(random() * jitterMs);
  const schedule = (delayMs: number) => {
    timer = clock.setTimeout(tick, Math.max(0, delayMs));
  };
  const tick = () => {
    timer = undefined;
    if (abort.signal.aborted) return;
    const startedAt = clock.now();
    running = once(startedAt);
  };
  const once = async (startedAt: number) => {
    try {
      await run(abort.signal);
    } catch (err) {
      // A run cut short by stop() is expected to throw; anything else is an operator's business.
      if (abort.signal.aborted) log.debug({ err, job: name }, 'periodic job ended by its stop');
      else log.warn({ err, job: name }, 'periodic job failed; it runs again at its next time');
    }
    running = undefined;
    if (!abort.signal.aborted) schedule(waitMs() - (clock.now() - startedAt));
  };

  schedule(waitMs());
  const job: PeriodicJob = {
    stop() {
      stopped ??= (async () => {
        abort.abort(new Error(`${name} stopped`));
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
        await running;
      })();
      return stopped;
    },
  };
  options.lifecycle?.defer(name, () => job.stop());
  return job;
}

const REAL_CLOCK: JobClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
