import type { CopyRow } from './database.js';

const FILLER =
  'Shall we settle the rollout plan today, or wait for the load test numbers from the staging cluster first? ';

/** The benchmark's messages: spread over `groups` conversations, about 100 characters each. */
export class Workload {
  private readonly baseTime = Date.parse('2025-01-15T02:00:00Z');

  constructor(
    private readonly runId: string,
    private readonly groups: number,
  ) {}

  groupOf(i: number): string {
    return `bench_${this.runId}_g${i % this.groups}`;
  }

  /** The body of `POST /api/v1/memories` (and the `data` of a Kafka record). `pass` keeps ids apart. */
  message(pass: string, i: number) {
    const head = `${pass} #${i}: `;
    return {
      group_id: this.groupOf(i),
      message_id: `${pass}_${i}`,
      create_time: new Date(this.baseTime + i * 1000).toISOString(),
      sender: `user_${i % 50}`,
      content: head + FILLER.slice(0, Math.max(0, 100 - head.length)),
    };
  }

  /** A record a Kafka producer writes straight to the input topic: the public envelope. */
  kafkaRecord(i: number): { key: string; value: string } {
    const data = this.message('k', i);
    const event = {
      id: `bench_${this.runId}_k_${i}`,
      type: 'group_chat.message.received',
      occurred_at: new Date().toISOString(),
      source: 'bench',
      data,
    };
    return { key: data.group_id, value: JSON.stringify(event) };
  }

  /** The row the converter would store for Kafka message `i`, numbered per group like it would be. */
  copyRow(i: number): CopyRow {
    const m = this.message('k', i);
    return {
      conversationId: m.group_id,
      seq: Math.floor(i / this.groups),
      messageId: m.message_id,
      sender: m.sender,
      content: m.content,
      createdAt: m.create_time,
    };
  }
}
