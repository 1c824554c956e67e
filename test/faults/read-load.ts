/** One read of the read load: its status, or 0 when it failed without an answer or passed its timeout. */
interface ReadRecord {
  readonly at: number;
  readonly status: number;
  readonly retryAfter: boolean;
}

export interface ReadFigures {
  readonly reads: number;
  readonly ok: number;
  /** 503 with Retry-After: allowed. */
  readonly refused: number;
  /** Anything else: a 5xx other than a 503 with Retry-After, a 4xx, a transport failure. */
  readonly bad: readonly string[];
  /** Reads that did not answer within the timeout. */
  readonly hung: number;
  /** The longest time between two answered reads, in ms: reads that stopped answering show here. */
  readonly longestGapMs: number;
}

/**
 * Reads going on beside the fault suite's writes: `clients` loops, each listing a load group's
 * messages and searching it by keyword on the read API, as an agent does on each turn.
 */
export class ReadLoad {
  private readonly records: ReadRecord[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly base: string,
    private readonly groups: number,
    private readonly timeoutMs: number,
    private readonly clients = 3,
  ) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.clients }, (_, c) => this.loop(c));
  }

  async stop(): Promise<ReadFigures> {
    this.running = false;
    await Promise.all(this.loops);
    const answered = this.records.filter((r) => r.status === 200).map((r) => r.at);
    let longestGapMs = 0;
    for (let i = 1; i < answered.length; i++) longestGapMs = Math.max(longestGapMs, answered[i]! - answered[i - 1]!);
    return {
      reads: this.records.length,
      ok: answered.length,
      refused: this.records.filter((r) => r.status === 503 && r.retryAfter).length,
      bad: this.records
        .filter((r) => r.status !== 200 && !(r.status === 503 && r.retryAfter) && r.status !== -1)
        .map((r) => String(r.status)),
      hung: this.records.filter((r) => r.status === -1).length,
      longestGapMs,
    };
  }

  private async loop(client: number): Promise<void> {
    for (let i = client; this.running; i += this.clients) {
      const group = `g${i % this.groups}`;
      const path =
        i % 2 === 0
          ? `/api/v1/memories?group_id=${group}&limit=20`
          : `/api/v1/memories/search?query=message&group_id=${group}&retrieve_method=keyword`;
      let status: number;
      let retryAfter = false;
      try {
        const res = await fetch(`${this.base}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
        await res.arrayBuffer();
        status = res.status;
        retryAfter = res.headers.has('retry-after');
        // A refused read is tried again after the pause it names, as a client would.
        if (status === 503) await new Promise((r) => setTimeout(r, 200));
      } catch (err) {
        status = (err as Error).name === 'TimeoutError' ? -1 : 0;
      }
      this.records.push({ at: Date.now(), status, retryAfter });
    }
  }
}
