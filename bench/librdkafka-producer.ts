/**
 * `npm run bench:librdkafka`: how fast the distributed converter stores what a librdkafka producer
 * writes, against that producer's own rate, uncompressed and compressed. Starts a converter as its
 * own process on a fresh database and topic prefix; each pass writes `--messages` records with one
 * confluent-kafka producer set as the producer guide says (bench/lib/librdkafka-load.py), and the
 * codecs alternate over `--rounds` (reversed every other round, so warm-up favours none). Producer
 * rate: records per second from the first produce until flush returns. Stored rate: messages per
 * second from the same start until the converter has stored them all (rows counted).
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { TOPICS } from '@memstream/schemas';
import { confluentKafkaPython } from '../harness/foreign-clients.js';
import { freePort, REPO_ROOT, runCaptured } from '../harness/processes.js';
import { connect, countMessages, createDatabase, waitForCount } from './lib/database.js';
import { positiveInt } from './lib/flags.js';
import { deleteTopicsWithPrefix } from './lib/kafka-load.js';
import { backgroundLoad, cpuBetween, ProcMonitor } from './lib/proc-monitor.js';
import { startService, waitHealthy } from './lib/services.js';
import { ratePerSecond, round } from './lib/stats.js';
import { section, table } from './lib/table.js';
import { Teardowns } from './lib/teardowns.js';

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    groups: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '2' },
    codecs: { type: 'string', default: 'none,lz4,zstd' },
    warmup: { type: 'string', default: '500' },
    'store-timeout-s': { type: 'string', default: '180' },
  },
});
const M = positiveInt('messages', flags.messages);
const G = positiveInt('groups', flags.groups);
const rounds = positiveInt('rounds', flags.rounds);
const warmup = positiveInt('warmup', flags.warmup, 0);
const storeTimeoutMs = positiveInt('store-timeout-s', flags['store-timeout-s']) * 1000;
const codecs = flags.codecs.split(',');

const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL) {
  console.error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run it as `npm run bench:librdkafka`');
  process.exit(2);
}
const runName = `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const prefix = `${runName}.`;
const topic = `${prefix}${TOPICS.groupChatInput.name}`;
const monitor = new ProcMonitor(500);
monitor.watch('bench', process.pid);
const teardowns = new Teardowns(() => monitor.stop());
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
let died: string | undefined;

interface Pass {
  readonly round: number;
  readonly codec: string;
  readonly producer_per_s: number;
  readonly stored_per_s: number;
  readonly stored_of_producer: number;
  readonly producer_s: number;
  readonly stored_s: number;
  readonly cores: Record<string, number>;
}

/** One producer run of `count` records; resolves once the converter has stored every one of them. */
async function pass(db: pg.Client, python: string, codec: string, count: number, tag: string) {
  const before = await countMessages(db);
  const cpu0 = monitor.cpu();
  let failed: string | undefined;
  const load = runCaptured(python, [
    resolve(REPO_ROOT, 'bench/lib/librdkafka-load.py'),
    KAFKA_BROKERS!,
    topic,
    codec,
    String(count),
    String(G),
    tag,
  ]).then((run) => {
    if (run.code !== 0) failed = `the producer failed (${run.code}): ${run.stderr.slice(-2000)}`;
    return run;
  });
  const reached = await waitForCount(db, before + count, storeTimeoutMs, () => died ?? failed);
  if (reached.reachedAt === undefined)
    throw new Error(`${codec}: ${reached.count - before} of ${count} stored in time`);
  const cores = cpuBetween(cpu0, monitor.cpu());
  const run = await load;
  if (failed) throw new Error(failed);
  const times = JSON.parse(run.stdout.trim()) as { started_ms: number; flushed_ms: number };
  const storedMs = performance.timeOrigin + reached.reachedAt - times.started_ms;
  const producerMs = times.flushed_ms - times.started_ms;
  return { producerMs, storedMs, cores };
}

async function main(): Promise<Pass[]> {
  const background = await backgroundLoad(monitor, 0, progress);
  progress(`machine before start: ${JSON.stringify(background)} cores busy`);
  const python = await confluentKafkaPython();
  const database = await createDatabase(DATABASE_URL!, runName);
  teardowns.push(['database', database.drop]);
  teardowns.push(['topics', () => deleteTopicsWithPrefix(KAFKA_BROKERS!.split(','), prefix)]);
  const converter = startService({
    name: 'converter',
    entry: 'services/converter/src/main.ts',
    env: {
      KAFKA_BROKERS: KAFKA_BROKERS!,
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL!,
      KAFKA_TOPIC_PREFIX: prefix,
      CONVERTER_GROUP_ID: `${runName}_converter`,
      LOG_LEVEL: 'warn',
      PORT: String(await freePort()),
    },
  });
  teardowns.push(['converter', () => converter.stop()]);
  monitor.watch('converter', converter.pid);
  void converter.exited.then((code) => {
    if (!converter.stopping) died = `the converter exited early (${String(code)}):\n${converter.tail()}`;
  });
  await waitHealthy(converter);
  const db = await connect(database.url);
  teardowns.push(['count client', () => db.end()]);
  if (warmup > 0) {
    progress(`warm-up: ${warmup} records, so the group has joined before the clock runs`);
    await pass(db, python, 'none', warmup, 'w');
  }
  const passes: Pass[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const codec of r % 2 === 1 ? codecs : [...codecs].reverse()) {
      progress(`round ${r}, ${codec}: ${M} records`);
      const { producerMs, storedMs, cores } = await pass(db, python, codec, M, `r${r}${codec}`);
      const producerRate = ratePerSecond(M, producerMs);
      const storedRate = ratePerSecond(M, storedMs);
      passes.push({
        round: r,
        codec,
        producer_per_s: producerRate,
        stored_per_s: storedRate,
        stored_of_producer: round(storedRate / producerRate, 3),
        producer_s: round(producerMs / 1000, 2),
        stored_s: round(storedMs / 1000, 2),
        cores,
      });
    }
  }
  return passes;
}

try {
  const passes = await main();
  await teardowns.run();
  console.log(section(`librdkafka producer -> converter, ${M} messages over ${G} groups per pass`));
  console.log(
    table(
      ['round / codec', 'producer/s', 'stored/s', 'stored/producer', 'converter cores', 'machine cores'],
      passes.map((p) => [
        `${p.round} ${p.codec}`,
        p.producer_per_s,
        p.stored_per_s,
        p.stored_of_producer,
        p.cores['converter'] ?? 0,
        p.cores['machine'] ?? 0,
      ]),
    ),
  );
  console.log(JSON.stringify({ bench: 'librdkafka-producer', messages: M, groups: G, passes }));
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await teardowns.run();
  process.exitCode = 1;
}
