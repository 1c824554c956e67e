import type { OutgoingRecord } from './bus.js';

export interface TopicRecords {
  readonly topic: string;
  readonly records: readonly OutgoingRecord[];
}

interface Pending extends TopicRecords {
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export interface ProduceQueueLimits {
  /** Most records in one produce request. */
  readonly maxRecords: number;
  /** Rough payload bytes of one request; kept under the broker's 1 MB default record-batch limit. */
  readonly maxBytes: number;
}

/**
 * Group commit for a producer that allows one request in flight (the idempotent, ordered kind):
 * while a request is out, callers queue; when it returns, everything queued goes in the next
 * request. Under load requests grow and their count stays flat; idle, a record goes out at once,
 * so there is no linger delay to tune. Order of calls is the order on the wire.
 */
export class ProduceQueue {
  private readonly queue: Pending[] = [];
  private sending = false;

  constructor(
    private readonly send: (batch: readonly TopicRecords[]) => Promise<void>,
    private readonly limits: ProduceQueueLimits,
  ) {}

  enqueue(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const parts = this.split(records);
    const sent = parts.map(
      ({ records: part, bytes }) =>
        new Promise<void>((resolve, reject) => {
          this.queue.push({ topic, records: part, bytes, resolve, reject });
        }),
    );
    void this.pump();
    return parts.length === 1 ? sent[0]! : Promise.all(sent).then(() => undefined);
  }

  /**
   * A call's records in consecutive parts, each within the request limits (a record larger than
   * the byte limit alone). One request carried a whole call before: a flush's stored events with
   * two 680 KB messages among them went past the broker's 1 MB record-batch limit, failed as a
   * whole, and the flush was delivered again one record at a time. The parts go in order, one
   * request in flight, so order on the wire still follows the call.
   */
  private split(records: readonly OutgoingRecord[]): Array<{ records: OutgoingRecord[]; bytes: number }> {
    const parts: Array<{ records: OutgoingRecord[]; bytes: number }> = [];
    let current = { records: [] as OutgoingRecord[], bytes: 0 };
    for (const r of records) {
      const size = sizeOf(r);
      const full = current.records.length >= this.limits.maxRecords || current.bytes + size > this.limits.maxBytes;
      if (current.records.length > 0 && full) {
        parts.push(current);
        current = { records: [], bytes: 0 };
      }
      current.records.push(r);
      current.bytes += size;
    }
    parts.push(current);
    return parts;
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    // Let the rest of this event-loop turn enqueue too (a burst of requests parsed together),
    // so an idle producer's first request is not a request of one.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const taken = this.take();
        try {
          await this.send(mergeByTopic(taken));
          for (const p of taken) p.resolve();
        } catch (err) {
          // A failed request may have reached some partitions: callers retry, consumers dedupe.
          for (const p of taken) p.reject(err);
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /** Takes whole parts of calls only (see split); always at least one. */
  private take(): Pending[] {
    const taken: Pending[] = [this.queue.shift()!];
    let records = taken[0]!.records.length;
    let bytes = taken[0]!.bytes;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (records + next.records.length > this.limits.maxRecords || bytes + next.bytes > this.limits.maxBytes) break;
      taken.push(this.queue.shift()!);
      records += next.records.length;
      bytes += next.bytes;
    }
    return taken;
  }
}

function mergeByTopic(pending: readonly Pending[]): TopicRecords[] {
  const byTopic = new Map<string, OutgoingRecord[]>();
  for (const p of pending) {
    let list = byTopic.get(p.topic);
    if (!list) byTopic.set(p.topic, (list = []));
    list.push(...p.records);
  }
  return [...byTopic].map(([topic, records]) => ({ topic, records }));
}

function sizeOf(r: OutgoingRecord): number {
  const value = r.value ?? '';
  let n = Buffer.byteLength(r.key ?? '') + (typeof value === 'string' ? Buffer.byteLength(value) : value.length) + 64;
  for (const [k, v] of Object.entries(r.headers ?? {})) n += k.length + v.length;
  return n;
}
