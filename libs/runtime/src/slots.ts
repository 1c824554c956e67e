/**
 * At most `size` pieces of work at once; the rest wait their turn, first come first served. For
 * work whose cost grows when more of it runs together, such as inserts into one HNSW graph: the
 * indexer's partition lanes each hand it a write, and it lets a few of them reach PostgreSQL.
 *
 * A waiter holds nothing while it waits (no pool connection, no lock), so a long queue costs only
 * time. Work that throws frees its slot like work that succeeds.
 */
export class Slots {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots must be a positive integer, not ${size}`);
  }

  /** How many are waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running++;
    // the slot is handed over by the one leaving it (release), so `running` never dips between them
    else await new Promise<void>((taken) => this.queue.push(taken));
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }
}
