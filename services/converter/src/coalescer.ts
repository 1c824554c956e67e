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

export interface CoalesceLimits {
  /** Flushes that may run at once; a second starts only when more is queued than one flush takes. */
  readonly parallel: number;
  /** Items one flush takes (whole batches, at least one): a backlog is split into flushes this size. */
  readonly maxItems: number;
}

/**
 * Group commit across partitions. Kafka hands a consumer one partition's batch at a time, so under
 * HTTP load each batch is a handful of messages and every one pays its own statement, produce
 * request and notification. Batches submitted while flushes run wait and then go together in the
 * next one: the cost per flush stays, the number of flushes drops with load.
 *
 * A backlog (records produced straight to the topic, or a consumer catching up) is different: every
 * partition hands over a full batch at once. Taken in one flush, they made one statement of
 * thousands of messages while the converter and the network waited, then a publish while Postgres
 * waited (measured: 1.37 of 2 cores busy). So a flush takes at most `maxItems`, and while more than
 * that is queued, further flushes start, up to `parallel`: one statement runs while another's rows
 * are converted or its stored events are published, and Postgres uses more than one core. Light
 * load never queues more than one flush takes, so it still goes as one flush at a time.
 *
 * Unless a backlog is queued, a flush does not start while the last flush's tail (its publish) is
 * open: it waits for that tail and one more event-loop turn. A partition hands over its next batch
 * only once its last one resolved, which is when that batch's tail settles: a flush started
 * before then took only the partitions that were not in the last one, and the others came in a
 * flush of their own after it, so under steady HTTP load the flushes alternated between two halves
 * of the partitions, each paying a statement, a produce request and a notification for half the
 * messages (measured in the distributed held-write pass: 16 messages a flush; 26 with the wait,
 * and 1.19 times the held writes a second).
 *
 * Order holds: the bus never hands over a partition's next batch before the previous one resolved,
 * so no two flushes ever hold batches of the same partition (order across partitions never
 * mattered). A failed flush fails every batch in it; the bus then retries each batch or takes it
 * apart itself, outside this coalescer.
 */
export function coalesce<T>(
  flush: Flush<T>,
  limits: CoalesceLimits = { parallel: 1, maxItems: Number.POSITIVE_INFINITY },
): Handler<T> {
  type Submitted = { items: readonly T[]; ctx: HandlerContext; resolve: () => void; reject: (err: unknown) => void };
  const queue: Submitted[] = [];
  let queuedItems = 0;
  let running = 0;
  /** The last flush's tail, until it settles (see above). */
  let openTail: Promise<void> | undefined;

  /** Whole batches from the head of the queue, up to maxItems (always at least one). */
  const take = (): Submitted[] => {
    const taken = [queue.shift()!];
    let items = taken[0]!.items.length;
    while (queue.length > 0 && items + queue[0]!.items.length <= limits.maxItems) {
      items += queue[0]!.items.length;
      taken.push(queue.shift()!);
    }
    queuedItems -= items;
    return taken;
  };

  const run = async () => {
    running++;
    // Partitions of one fetch arrive in the same event-loop turn: let them all in first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (queue.length > 0) {
        if (openTail && queuedItems < limits.maxItems) {
          await openTail;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        const taken = take();
        // What this flush left behind is more than another flush takes: start one beside it.
        if (queuedItems > 0 && running < limits.parallel) void run();
        try {
          const tail = await flush(
            taken.flatMap((t) => t.items),
            merged(taken.map((t) => t.ctx)),
          );
          // The batches are done when the tail is. Tails settle in order for one partition
          // because they are queued in flush order (the bus).
          const pending = tail?.pending ?? Promise.resolve();
          const settled = pending.then(
            () => undefined,
            () => undefined, // its failure is its own batches' (below)
          );
          openTail = settled;
          void settled.then(() => {
            if (openTail === settled) openTail = undefined;
          });
          void pending.then(
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
      queuedItems += items.length;
      if (running === 0 || (running < limits.parallel && queuedItems > limits.maxItems)) void run();
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
