import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
/** The release the trials used; its wheel carries librdkafka with every codec built in. */
const CONFLUENT_KAFKA = 'confluent-kafka==2.16.1';
const VENV = resolve(REPO_ROOT, '.cache/producer-venv');

/**
 * Produces `records` to `topic` with a client that is not kafkajs, each codec's records of a
 * partition as one compressed batch, and returns where each landed. The Java producer runs on the
 * jars the local broker runs on (scripts/infra resolves them from Maven Central; resolved here the
 * same way when the broker is someone else's); the Python one in a virtual environment of its own
 * under .cache, made from PyPI on first use.
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
        : await runCaptured(await python(), [join(PRODUCERS, 'compressed_producer.py'), brokers, topic, file]);
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

/** The folder of Kafka's jars, as scripts/infra/kafka.sh lays it out (kafka-clients and its codecs among them). */
async function kafkaJars(): Promise<string> {
  const cache =
    process.env.MEMSTREAM_CACHE_DIR ??
    (process.getuid?.() === 0
      ? '/var/cache/memstream'
      : join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'memstream'));
  const jars = join(cache, 'kafka-3.9.1', 'jars');
  if (existsSync(join(jars, '.complete'))) return jars;
  const pom = resolve(REPO_ROOT, 'scripts/infra/kafka/pom.xml');
  const run = await runCaptured('mvn', [
    '-q',
    '-B',
    '-f',
    pom,
    'dependency:copy-dependencies',
    '-DincludeScope=runtime',
    `-DoutputDirectory=${jars}`,
  ]);
  if (run.code !== 0)
    throw new Error(`resolving Kafka's jars failed: ${run.stdout.slice(-2000)}${run.stderr.slice(-2000)}`);
  writeFileSync(join(jars, '.complete'), '');
  return jars;
}

let venvReady: Promise<string> | undefined;

/** The virtual environment's python, with confluent-kafka installed (once per process). */
function python(): Promise<string> {
  venvReady ??= (async () => {
    const bin = join(VENV, 'bin', 'python');
    if (existsSync(bin) && (await runCaptured(bin, ['-c', 'import confluent_kafka'])).code === 0) return bin;
    rmSync(VENV, { recursive: true, force: true });
    for (const [command, args] of [
      ['python3', ['-m', 'venv', VENV]],
      [join(VENV, 'bin', 'pip'), ['install', '-q', '--disable-pip-version-check', CONFLUENT_KAFKA]],
    ] as const) {
      const run = await runCaptured(command, args);
      if (run.code !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
    }
    return bin;
  })();
  return venvReady;
}
