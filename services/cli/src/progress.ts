export interface ProgressSink {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
}

/**
 * Progress on stderr, so stdout stays one JSON summary a script can parse. A terminal gets one
 * line redrawn in place (at most ten times a second: redrawing per message would cost more than
 * sending it); a log file or pipe gets a plain line per tenth of the work, never a flood.
 */
export class Progress {
  private done = 0;
  private readonly started: number;
  private lastDraw = 0;
  private lastDecile = 0;

  constructor(
    private readonly sink: ProgressSink,
    private readonly total: number,
    private readonly label = 'import',
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  advance(count = 1): void {
    this.done += count;
    if (this.sink.isTTY) {
      const t = this.now();
      if (t - this.lastDraw >= 100 || this.done >= this.total) {
        this.lastDraw = t;
        this.sink.write(`\r${this.line()}\u001b[K`);
      }
      return;
    }
    const decile = this.total === 0 ? 10 : Math.floor((this.done * 10) / this.total);
    if (decile > this.lastDecile) {
      this.lastDecile = decile;
      this.sink.write(`${this.line()}\n`);
    }
  }

  /** Ends the redrawn line so whatever comes next starts on its own. */
  finish(): void {
    if (this.sink.isTTY) this.sink.write(`\r${this.line()}\u001b[K\n`);
  }

  private line(): string {
    const seconds = Math.max(0.001, (this.now() - this.started) / 1000);
    const rate = this.done / seconds;
    const percent = this.total === 0 ? 100 : (this.done * 100) / this.total;
    const eta = rate > 0 ? Math.ceil((this.total - this.done) / rate) : undefined;
    return `${this.label} ${this.done}/${this.total} (${percent.toFixed(1)}%) ${rate.toFixed(0)}/s eta ${eta === undefined ? '?' : `${eta}s`}`;
  }
}
