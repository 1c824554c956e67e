/**
 * The records of one partition that a Kafka consumer has taken from kafkajs and not handled yet.
 *
 * kafkajs fetches again only once every batch of its previous fetch has been handed back. Handled
 * inside `eachBatch`, each fetch (the broker's read, the wire, the decoding) is a pause with
 * nothing to do, and the partitions that finish first wait for the slowest one: measured on the
 * converter under a backlog, PostgreSQL idled through both. A lane takes the batch, hands it back
 * at once and handles it while kafkajs fetches the next one. The partition's next batch waits for
 * the lane to finish this one, so order holds and a partition has at most two batches in memory.
 */
export class PartitionLane {
  /** Offset after the last record taken; records below it (fetched again after a rejoin) are in hand already. */
  private next: bigint | undefined;
  private busy: Promise<void>;
  private revoked = false;
  /** Records gathered for the handling queued behind the lane's current work (see `gather`). */
  private gathered: unknown[] = [];
  private gatheredHandled = false;
  /** The offset after the last record handled, and the last such offset a commit has carried. */
  private handledUpTo: string | undefined;
  private committedUpTo: string | undefined;

  /** `after`: the work of the lane this one replaces, which must end first (see `successor`). */
  constructor(after: Promise<void> = Promise.resolve()) {
    this.busy = after;
  }

  /** Settles once everything taken has been handled or given up. Never rejects. */
  get idle(): Promise<void> {
    return this.busy;
  }

  get current(): boolean {
    return !this.revoked;
  }

  /** The messages of a fetched batch this lane does not hold yet. */
  unseen<M extends { readonly offset: string }>(messages: readonly M[]): M[] {
    const next = this.next;
    return next === undefined ? [...messages] : messages.filter((m) => BigInt(m.offset) >= next);
  }

  /** Queues `work` (which must not reject) behind what the lane holds; `lastOffset` is the last record it covers. */
  take(lastOffset: string, work: () => Promise<void>): void {
    this.next = BigInt(lastOffset) + 1n;
    this.busy = this.busy.then(work);
  }

  /**
   * Takes `records` (`lastOffset` the last of them) to be handled after what the lane holds,
   * together with any others gathered before that handling starts: while one batch is being
   * stored, the fetches kafkajs makes meanwhile gather here and reach `handle` (which must not
   * reject) as one, in the order taken. Without it each fetch, made the moment the lane took the
   * batch before, came back with the few records that had arrived by then, and the store got many
   * small batches instead of a few larger ones (half the size under held writes).
   */
  gather<R>(lastOffset: string, records: readonly R[], handle: (records: R[]) => Promise<void>): void {
    this.next = BigInt(lastOffset) + 1n;
    this.gathered.push(...records);
    if (this.gatheredHandled) return;
    this.gatheredHandled = true;
    this.busy = this.busy.then(() => {
      const taken = this.gathered as R[];
      this.gathered = [];
      this.gatheredHandled = false;
      return handle(taken);
    });
  }

  /** Records gathered and not handed to a handler yet. */
  get waiting(): number {
    return this.gathered.length;
  }

  /** Records up to `next` (exclusive) are handled: the group's offset may move there. */
  handled(next: string): void {
    this.handledUpTo = next;
  }

  /**
   * The offset to commit for what was handled and not committed yet, or undefined. It stays
   * uncommitted until `committed` is told a commit carried it: a commit that failed (the group's
   * coordinator moved, a broker went away) is sent again by the next one. Were it dropped, a
   * partition that receives nothing more would keep its old offset, and its lag, for good.
   */
  get uncommitted(): string | undefined {
    return this.revoked || this.handledUpTo === this.committedUpTo ? undefined : this.handledUpTo;
  }

  /** A commit carrying `offset` (an earlier `uncommitted`) succeeded. */
  committed(offset: string): void {
    this.committedUpTo = offset;
  }

  /**
   * The member (re)joined its group and kept this partition. What the group holds as committed is
   * the broker's to say now, not this lane's: a commit that kafkajs answered without sending it
   * (its runner not running, between a crash and the restart) was never stored, and the new
   * generation fetches from the older offset and hands the same records over again. Their
   * progress equals what the lane already took as committed, so it would never be offered again
   * and the lag would stay. The handled progress is offered once more instead (committing an
   * offset twice is harmless).
   */
  rejoined(): void {
    this.committedUpTo = undefined;
  }

  /**
   * The partition went to another member: this lane stops between two batches of records, and a
   * new one takes over should the partition come back, once this one's work has ended. Its
   * uncommitted progress is the new owner's to redo.
   */
  successor(): PartitionLane {
    this.revoked = true;
    return new PartitionLane(this.busy);
  }
}

/** Whether `promise` settles within `ms`; false as soon as `signal` aborts. */
export async function settlesWithin(promise: Promise<unknown>, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
        onAbort = () => resolve(false);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
