import { Kafka, logLevel, type Producer } from 'kafkajs';

export type WriteKind = 'held' | 'async' | 'direct';

/** What happened to one write, as its client saw it. */
export interface WriteRecord {
  readonly kind: WriteKind;
  readonly groupId: string;
  readonly messageId: string;
  readonly startedAt: number;
  readonly endedAt: number;
  /** acked: 200/202 (or the broker's ack); refused: an answer other than that; hung: no answer in time; failed: no answer at all. */
  readonly outcome: 'acked' | 'refused' | 'hung' | 'failed';
  readonly status?: number;
  readonly retryAfter?: string | null;
  /** The answer's body is EverMemOS's error envelope. */
  readonly errorShaped?: boolean;
}

export interface LoadSettings {
  readonly gateway: string;
  /** Comma-separated, as KAFKA_BROKERS. */
  readonly brokers: string;
  readonly topic: string;
  readonly groups: number;
  /** Concurrent clients of each kind. */
  readonly clientsPerKind: number;
  /** A held call answering later than this (the gateway's sync timeout plus a margin) hung. */
  readonly answerWithinMs: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Steady write load of the three kinds a memory service sees: HTTP writes held until stored,
 * HTTP writes answered on the broker's ack (`sync_mode=false`), and producers writing the input
 * topic directly. Every write has its own message id and is recorded with what its client saw;
 * refused writes are not retried, so "acknowledged" is exactly what a client was told was kept.
 */
export class SteadyLoad {
  readonly records: WriteRecord[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private producer: Producer | undefined;
  private counter = 0;

  constructor(private readonly settings: LoadSettings) {}

  async start(): Promise<void> {
    const kafka = new Kafka({
      brokers: this.settings.brokers.split(','),
      clientId: 'fault-load',
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 200 },
    });
    this.producer = kafka.producer({ allowAutoTopicCreation: false });
    await this.producer.connect();
    this.running = true;
    for (const kind of ['held', 'async', 'direct'] as const) {
      for (let c = 0; c < this.settings.clientsPerKind; c++) this.loops.push(this.loop(kind));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
    await this.producer?.disconnect().catch(() => undefined);
  }

  acked(): WriteRecord[] {
    return this.records.filter((r) => r.outcome === 'acked');
  }

  private async loop(kind: WriteKind): Promise<void> {
    while (this.running) {
      const n = this.counter++;
      const groupId = `g${n % this.settings.groups}`;
      const body = {
        group_id: groupId,
        message_id: `${kind}-${n}`,
        create_time: new Date().toISOString(),
        sender: `u${n % 3}`,
        content: `${kind} write ${n} about topic ${n % 7}`,
      };
      const startedAt = Date.now();
      const record = kind === 'direct' ? await this.produce(body) : await this.post(kind, body);
      this.records.push({ kind, groupId, messageId: body.message_id, startedAt, endedAt: Date.now(), ...record });
      // A refused client waits a little before its next write, as Retry-After asks.
      await pause(record.outcome === 'acked' ? 10 : 200);
    }
  }

  private async post(
    kind: 'held' | 'async',
    body: Record<string, string>,
  ): Promise<Pick<WriteRecord, 'outcome' | 'status' | 'retryAfter' | 'errorShaped'>> {
    try {
      const res = await fetch(`${this.settings.gateway}/api/v1/memories${kind === 'async' ? '?sync_mode=false' : ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.answerWithinMs),
      });
      const text = await res.text();
      if (res.status === 200 || res.status === 202) return { outcome: 'acked', status: res.status };
      let errorShaped = false;
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        errorShaped =
          parsed['status'] === 'failed' && typeof parsed['code'] === 'string' && typeof parsed['message'] === 'string';
      } catch {
        errorShaped = false;
      }
      return { outcome: 'refused', status: res.status, retryAfter: res.headers.get('retry-after'), errorShaped };
    } catch (err) {
      return { outcome: (err as Error).name === 'TimeoutError' ? 'hung' : 'failed' };
    }
  }

  private async produce(body: Record<string, string>): Promise<Pick<WriteRecord, 'outcome'>> {
    try {
      await this.producer!.send({
        topic: this.settings.topic,
        acks: -1,
        messages: [
          {
            key: body['group_id']!,
            value: JSON.stringify({
              id: `direct-event-${body['message_id']}`,
              type: 'group_chat.message.received',
              occurred_at: new Date().toISOString(),
              data: body,
            }),
          },
        ],
      });
      return { outcome: 'acked' };
    } catch {
      return { outcome: 'failed' };
    }
  }
}
