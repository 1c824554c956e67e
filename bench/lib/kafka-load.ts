import { Kafka, logLevel } from 'kafkajs';

export interface ProduceOptions {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly total: number;
  readonly chunkSize: number;
  readonly recordAt: (i: number) => { key: string; value: string };
}

export interface ProduceResult {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly acked: number;
}

/**
 * A plain kafkajs producer as an outside system would run one: idempotent, one request in flight
 * (so nothing is reordered or doubled on retry), acks from all replicas, `chunkSize` records per
 * send. Its rate is both the load on the converter and the client-side baseline of this path.
 */
export async function produceRecords(options: ProduceOptions): Promise<ProduceResult> {
  const kafka = new Kafka({
    clientId: 'memstream-bench',
    brokers: [...options.brokers],
    logLevel: logLevel.ERROR,
    requestTimeout: 30_000,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    let acked = 0;
    const startedAt = performance.now();
    for (let from = 0; from < options.total; from += options.chunkSize) {
      const messages = [];
      for (let i = from; i < Math.min(options.total, from + options.chunkSize); i++) messages.push(options.recordAt(i));
      await producer.send({ topic: options.topic, acks: -1, timeout: 30_000, messages });
      acked += messages.length;
    }
    return { startedAt, endedAt: performance.now(), acked };
  } finally {
    await producer.disconnect();
  }
}

/** Deletes every topic that starts with the run's prefix. */
export async function deleteTopicsWithPrefix(brokers: readonly string[], prefix: string): Promise<string[]> {
  const admin = new Kafka({ clientId: 'memstream-bench', brokers: [...brokers], logLevel: logLevel.ERROR }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
    return topics;
  } finally {
    await admin.disconnect();
  }
}
