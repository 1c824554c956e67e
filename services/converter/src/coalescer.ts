import type { HandlerContext } from '@memstream/bus';

type Flush<T> = (items: readonly T[], ctx: HandlerContext) => Promise<void>;

/**
 * Group commit across partitions. Kafka hands a consumer one partition's batch at a time, so under
 * HTTP load each batch is a handful of messages and every one pays its own statement, produce
 * request and notification. Batches submitted while flushes run wait and then go together in the
 * next one: the cost per flush stays, the number of flushes drops with load.
 *
 * Up to `parallel` flushes may run at once, so one can write to Postgres while another waits for
 * Kafka's ack (measured: no clear gain on 2 cores, and smaller batches, so the default is 1). Either
 * way order holds: the bus never hands over a partition's next batch before the
 * previous one resolved, so two flushes never hold the same partition (order across partitions
 * never mattered). A failed flush fails every batch in it; the bus then retries each batch or
 * takes it apart itself, outside this coalescer.
 */
export function coalesce<T>(flush: Flush<T>, parallel = 1): Flush<T> {
  let queue: Array<{ items: readonly T[]; ctx: HandlerContext; resolve: () => void; reject: (err: unknown) => void }> = [];
  let running = 0;

  const pump = async () => {
    if (running >= parallel) return;
    running++;
    // Partitions of one fetch arrive in the same event-loop turn: let them all in first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (queue.length > 0) {
        const taken = queue;
        queue = [];
        try {
          await flush(taken.flatMap((t) => t.items), merged(taken.map((t) => t.ctx)));
          for (const t of taken) t.resolve();
        } catch (err) {
          for (const t of taken) t.reject(err);
        }
      }
    } finally {
      running--;
    }
  };

  return (items, ctx) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ items, ctx, resolve, reject });
      void pump();
    });
}

/**
 * One flush speaks for every batch in it: the first batch's logger and attempt, and the
 * correlation ids of all of them, so the flush's log line names every request it stored.
 */
function merged(contexts: readonly HandlerContext[]): HandlerContext {
  const first = contexts[0]!;
  if (contexts.length === 1) return first;
  return { ...first, correlationIds: [...new Set(contexts.flatMap((c) => c.correlationIds))] };
}
