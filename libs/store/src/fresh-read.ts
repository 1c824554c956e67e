/**
 * One asynchronous reading shared by every caller that asks while it runs, with one rule: a
 * caller only gets a reading that started after it asked. A caller arriving while a reading is in
 * flight waits for the next one, which starts when the current one ends and serves everyone who
 * arrived meanwhile. So however many reads arrive at once, at most two readings are outstanding,
 * and none of them answers with a state from before its caller arrived (the primary's WAL
 * position a read must wait for, see ReplicaReads).
 */
export class FreshRead<T> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.running === undefined) return this.start();
    if (this.queued === undefined) {
      const after = this.running.then(
        () => undefined,
        () => undefined,
      );
      this.queued = after.then(() => {
        this.queued = undefined;
        return this.start();
      });
    }
    return this.queued;
  }

  /** The reading in flight, whenever it started, or a new one: for a value any recent reading will do. */
  join(): Promise<T> {
    return this.running ?? this.start();
  }

  private start(): Promise<T> {
    const reading: Promise<T> = this.read().finally(() => {
      if (this.running === reading) this.running = undefined;
    });
    this.running = reading;
    return reading;
  }
}
