import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { HandlerContext } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import type { ErasureCounts, Store } from '@memstream/store';
import type { ErasureInput } from '@memstream/schemas';
import { runErasureJob, takeOneErasure, type ErasureRunnerOptions } from './erasure-runner.js';
import type { SweptWork } from './lease-sweep.js';

/** How erasures run in this process (ERASURE_* settings). */
export interface ErasureSettings {
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly sweepIntervalMs: number;
  readonly maxAttempts: number;
}

export interface Eraser {
  /** The erasure topic's handler: runs the job the event names, here, to its end. */
  readonly handle: (event: ErasureInput, ctx: HandlerContext) => Promise<void>;
  /** The sweep's work: a job nobody holds (its event not reached yet, its worker dead, its try given up). */
  readonly work: SweptWork;
  /** Lets the job in hand stop between two batches (its lease then runs out). */
  close(): void;
}

/** This process's name on the leases it takes: unique per process, readable in a job row. */
export const leaseOwner = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * The governance worker's erasures. The event's consumer runs the job at once; the job's lease
 * keeps it to one worker across replicas, and the sweep takes over a job whose worker died or
 * whose event was never delivered. A failed try is logged, not dead-lettered: the job row is the
 * truth, and the sweep tries it again up to ERASURE_MAX_ATTEMPTS.
 *
 * Running here rather than in the converter loses no ordering: the event is keyed by the person,
 * not by a conversation, so it was never ordered with appends. What keeps an erasure from racing a
 * write is in the statements: each batch locks the rows it removes, and the final pass holds back
 * new writes (SHARE locks) while it looks for the person's data stored meanwhile (another pass if
 * any); a grant naming the person is refused by the converter while the job is open.
 */
export function createEraser(
  deps: {
    store: Store;
    discard: (conversationIds: readonly string[]) => Promise<void>;
    /** Removes the person's copies from the transport (see transport-erasure.ts). */
    eraseTransport: (userId: string) => Promise<ErasureCounts>;
    log: Logger;
  },
  settings: ErasureSettings,
): Eraser {
  const stopping = new AbortController();
  const options: ErasureRunnerOptions = {
    store: deps.store,
    owner: leaseOwner(),
    leaseMs: settings.leaseMs,
    batchSize: settings.batchSize,
    maxAttempts: settings.maxAttempts,
    discard: deps.discard,
    eraseTransport: deps.eraseTransport,
    log: deps.log,
    signal: stopping.signal,
  };
  return {
    async handle(event, ctx) {
      const job = await runErasureJob(options, event.data.erasure_id).catch((err: unknown) => {
        ctx.log.error({ err, erasureJobId: event.data.erasure_id }, 'erasure try failed; the sweep takes it again');
        return undefined;
      });
      ctx.log.info({ erasureJobId: event.data.erasure_id, status: job?.status }, 'erasure event handled');
    },
    work: { name: 'erasure', everyMs: settings.sweepIntervalMs, takeOne: () => takeOneErasure(options) },
    close: () => stopping.abort(),
  };
}
