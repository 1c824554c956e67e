import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { confluentKafkaPython, kafkaJars } from '../../harness/foreign-clients.js';
import { REPO_ROOT, runCaptured } from '../../harness/processes.js';
import { infra } from './infra.js';

/** Kafka's codecs by the names both clients' `compression.type` takes. */
export const CODECS = ['gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Codec = (typeof CODECS)[number];

/** The two clients producers use most besides kafkajs: librdkafka (here through Python) and Java's. */
export const FOREIGN_CLIENTS = ['librdkafka', 'java'] as const;
export type ForeignClient = (typeof FOREIGN_CLIENTS)[number];

export interface ForeignRecord {
  readonly codec: Codec;
  readonly partition: number;
  readonly key: string;
  /** One line of text: a JSON envelope is. */
  readonly value: string;
}

export interface Produced {
  readonly codec: Codec;
  readonly partition: number;
  readonly offset: string;
}

const PRODUCERS = resolve(REPO_ROOT, 'test/e2e/producers');

/**
 * Produces `records` to `topic` with a client that is not kafkajs, each codec's records of a
 * partition as one compressed batch, and returns where each landed. The Java producer runs on the
 * jars the local broker runs on, the Python one in a virtual environment of its own
 * (harness/foreign-clients.ts).
 */
export async function produceWith(
  client: ForeignClient,
  topic: string,
  records: readonly ForeignRecord[],
): Promise<Produced[]> {
  const dir = mkdtempSync(join(tmpdir(), 'foreign-producer-'));
  try {
    const file = join(dir, 'records.tsv');
    writeFileSync(file, records.map((r) => [r.codec, r.partition, r.key, r.value].join('\t')).join('\n'));
    const brokers = infra().kafkaBrokers.join(',');
    const run =
      client === 'java'
        ? await runCaptured('java', [
            '-cp',
            `${await kafkaJars()}/*`,
            join(PRODUCERS, 'CompressedProducer.java'),
            brokers,
            topic,
            file,
          ])
        : await runCaptured(await confluentKafkaPython(), [
            join(PRODUCERS, 'compressed_producer.py'),
            brokers,
            topic,
            file,
          ]);
    if (run.code !== 0) throw new Error(`the ${client} producer failed (${run.code}): ${run.stderr.slice(-3000)}`);
    return run.stdout
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        const [codec, partition, offset] = line.trim().split(' ');
        return { codec: codec as Codec, partition: Number(partition), offset: offset! };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A record as a producer writes it: bytes or text, and null where the producer sends none. */
export interface RawRecord {
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Writes `records` to `topic` with librdkafka, byte for byte and in order (null keys and values,
 * bytes that are not UTF-8, headers), as a producer outside memstream may.
 */
export async function produceRawWithLibrdkafka(topic: string, records: readonly RawRecord[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'raw-producer-'));
  try {
    const file = join(dir, 'records.json');
    const b64 = (v: Buffer | string | null) => (v === null ? null : Buffer.from(v).toString('base64'));
    writeFileSync(
      file,
      JSON.stringify(records.map((r) => ({ key: b64(r.key), value: b64(r.value), headers: r.headers ?? {} }))),
    );
    const brokers = infra().kafkaBrokers.join(',');
    const run = await runCaptured(await confluentKafkaPython(), [
      join(PRODUCERS, 'raw_producer.py'),
      brokers,
      topic,
      file,
    ]);
    if (run.code !== 0) throw new Error(`the librdkafka producer failed (${run.code}): ${run.stderr.slice(-3000)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
