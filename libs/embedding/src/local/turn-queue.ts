/**
 * Runs one job at a time, urgent jobs before the others, each group in arrival order. The local
 * model has one inference thread: a search query waiting behind a bulk import's batches would
 * wait seconds, behind at most the batch already running it waits a fraction of one.
 */
export class TurnQueue {
  private readonly urgent: Array<() => void> = [];
  private readonly normal: Array<() => void> = [];
  private busy = false;

  async run<T>(isUrgent: boolean, job: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      (isUrgent ? this.urgent : this.normal).push(resolve);
      this.next();
    });
    try {
      return await job();
    } finally {
      this.busy = false;
      this.next();
    }
  }

  private next(): void {
    if (this.busy) return;
    const start = this.urgent.shift() ?? this.normal.shift();
    if (start === undefined) return;
    this.busy = true;
    start();
  }
}
