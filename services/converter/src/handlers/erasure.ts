import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { HandlerContext } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import {
  runErasureJob,
  startErasureSweep,
  type ErasureCounts,
  type ErasureRunnerOptions,
  type Store,
} from '@memstream/store';
import type { ErasureInput } from '@memstream/schemas';

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
  /** Stops the sweep and lets the job in hand stop between two batches (its lease then runs out). */
  close(): Promise<void>;
}

/**
 * The converter's erasure worker. The event's consumer runs the job; the job's lease keeps it to
 * one worker across replicas, and every replica's sweep takes over a job whose worker died (its
 * lease ran out) or whose event was never delivered. A failed try is logged, not dead-lettered:
 * the job row is the truth, and the sweep tries it again up to ERASURE_MAX_ATTEMPTS.
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
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: settings.leaseMs,
    batchSize: settings.batchSize,
    maxAttempts: settings.maxAttempts,
    discard: deps.discard,
    eraseTransport: deps.eraseTransport,
    log: deps.log,
    signal: stopping.signal,
  };
  const stopSweep = startErasureSweep({ ...options, intervalMs: settings.sweepIntervalMs });
  return {
    async handle(event, ctx) {
      const job = await runErasureJob(options, event.data.erasure_id).catch((err: unknown) => {
        ctx.log.error({ err, erasureJobId: event.data.erasure_id }, 'erasure try failed; the sweep takes it again');
        return undefined;
      });
      ctx.log.info({ erasureJobId: event.data.erasure_id, status: job?.status }, 'erasure event handled');
    },
    async close() {
      stopping.abort();
      await stopSweep();
    },
  };
}
