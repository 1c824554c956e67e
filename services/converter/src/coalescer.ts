import type { HandlerContext } from '@memstream/bus';

/**
 * What a flush may hand back: work that must finish before its batches count as handled, but that
 * need not hold up the next flush (publishing the stored events: the next statement can run while
 * they are written to the bus).
 */
export interface FlushTail {
  readonly pending: Promise<void>;
}

type Flush<T> = (items: readonly T[], ctx: HandlerContext) => Promise<void | FlushTail>;
type Handler<T> = (items: readonly T[], ctx: HandlerContext) => Promise<void>;

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
export function coalesce<T>(flush: Flush<T>, parallel = 1): Handler<T> {
  let queue: Array<{ items: readonly T[]; ctx: HandlerContext; resolve: () => void; reject: (err: unknown) => void }> =
    [];
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
          const tail = await flush(
            taken.flatMap((t) => t.items),
            merged(taken.map((t) => t.ctx)),
          );
          // The batches are done when the tail is; the next flush does not wait for it. Tails
          // settle in order for one partition because they are queued in flush order (the bus).
          void (tail?.pending ?? Promise.resolve()).then(
            () => taken.forEach((t) => t.resolve()),
            (err: unknown) => taken.forEach((t) => t.reject(err)),
          );
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
