/**
 * `npm run bench:ingest`: the ingest path of the distributed mode on the real services. Starts
 * an ingest gateway and a converter as their own processes on a fresh database and topic prefix,
 * then measures single-message POSTs (read-your-writes, then `sync_mode=false`), a bulk load
 * written straight to the input topic, and one COPY of the same rows as the ceiling. Prints a
 * table, then every figure as one JSON line.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { GroupChatInput, TOPICS } from '@memstream/schemas';
import { monotonicUs, summarizeProfiles, type Window } from './lib/cpu-profile.js';
import { connect, copyRows, countMessages, createDatabase, storingTransactions, waitForCount } from './lib/database.js';
import { runHttpLoad, successes } from './lib/http-load.js';
import { renderReport, type Goal, type HttpFigures, type IngestReport } from './lib/ingest-report.js';
import { deleteTopicsWithPrefix, produceRecords } from './lib/kafka-load.js';
import { measureRoundTrips } from './lib/probes.js';
import { backgroundLoad, cpuBetween, ProcMonitor } from './lib/proc-monitor.js';
import { freePort } from '../harness/processes.js';
import { startService, waitHealthy, type ServiceProcess } from './lib/services.js';
import { ratePerSecond, round, summarizeLatencies } from './lib/stats.js';
import { Workload } from './lib/workload.js';
import { positiveInt } from './lib/flags.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:ingest -- [options]
  --http-messages N   POSTs per HTTP pass (default 20000)
  --concurrency C     requests open at once, one keep-alive connection each (default 64)
  --groups G          conversations the messages are spread over (default 64)
  --kafka-messages M  records written straight to the input topic (default 100000)
  --kafka-chunk K     records per producer send (default 1000)
  --warmup W          POSTs sent before measuring, not counted (default 1000)
  --store-timeout-s S how long to wait for a phase's rows to be stored (default 180)
  --wait-quiet-s S    on a shared machine: first wait up to S seconds for other load to drop
                      below 0.3 cores (default 0: start at once; the load is reported either way)
  --profile           run the services with --cpu-prof and summarise where their time goes
  --profile-dir DIR   where the profiles go (default /tmp/memstream-bench-prof/<run>)`;

const { values: flags } = parseArgs({
  options: {
    'http-messages': { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
    groups: { type: 'string', default: '64' },
    'kafka-messages': { type: 'string', default: '100000' },
    'kafka-chunk': { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '1000' },
    'store-timeout-s': { type: 'string', default: '180' },
    'wait-quiet-s': { type: 'string', default: '0' },
    profile: { type: 'boolean', default: false },
    'profile-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

const N = positiveInt('http-messages', flags['http-messages']);
const C = positiveInt('concurrency', flags.concurrency);
const G = positiveInt('groups', flags.groups);
const M = positiveInt('kafka-messages', flags['kafka-messages']);
const chunk = positiveInt('kafka-chunk', flags['kafka-chunk']);
const warmup = positiveInt('warmup', flags.warmup, 0);
const waitQuietMs = positiveInt('wait-quiet-s', flags['wait-quiet-s'], 0) * 1000;
const storeTimeoutMs = positiveInt('store-timeout-s', flags['store-timeout-s']) * 1000;

/** The real services, as scripts/infra/up.sh (through bench/run.sh) exports them. */
function infraFromEnv(): { KAFKA_BROKERS: string; DATABASE_URL: string; REDIS_URL: string } {
  const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL) {
    console.error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run it as `npm run bench:ingest`');
    process.exit(2);
  }
  return { KAFKA_BROKERS, DATABASE_URL, REDIS_URL };
}
const infra = infraFromEnv();
const brokers = infra.KAFKA_BROKERS.split(',');

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const runName = `bench_${runId}`;
const topicPrefix = `${runName}.`;
const profileDir = flags.profile ? (flags['profile-dir'] ?? `/tmp/memstream-bench-prof/${runId}`) : undefined;
const workload = new Workload(runId, G);
const monitor = new ProcMonitor(500);
monitor.watch('bench', process.pid);

const teardowns = new Teardowns(() => monitor.stop());

/** Set when a service exits before the benchmark stops it: every wait gives up on it. */
let died: string | undefined;
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function startServices(dbUrl: string): Promise<{ gateway: ServiceProcess; converter: ServiceProcess }> {
  const common = {
    KAFKA_BROKERS: infra.KAFKA_BROKERS,
    DATABASE_URL: dbUrl,
    REDIS_URL: infra.REDIS_URL,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    CONVERTER_GROUP_ID: `${runName}_converter`,
    LOG_LEVEL: 'warn',
  };
  const start = async (name: string, entry: string) => {
    const svc = startService({
      name,
      entry,
      env: { ...common, PORT: String(await freePort()) },
      ...(profileDir ? { profileDir: join(profileDir, name) } : {}),
    });
    teardowns.push([name, () => svc.stop()]);
    monitor.watch(name, svc.pid);
    return svc;
  };
  // The converter first: it runs the migrations, and both create the topics (idempotently).
  const converter = await start('converter', 'services/converter/src/main.ts');
  await waitHealthy(converter);
  const gateway = await start('gateway', 'services/api/src/main-gateway.ts');
  await waitHealthy(gateway);
  for (const svc of [gateway, converter]) {
    void svc.exited.then((code) => {
      if (svc.stopping) return;
      died = `${svc.name} exited early (${String(code)})`;
      progress(`${died}:\n${svc.tail()}`);
    });
  }
  return { gateway, converter };
}

async function httpPass(
  db: pg.Client,
  gateway: ServiceProcess,
  pass: string,
  total: number,
  query: string,
): Promise<Omit<HttpFigures, 'fraction_of_ceiling'>> {
  const before = await countMessages(db);
  const cpu0 = monitor.cpu();
  const load = await runHttpLoad({
    origin: `http://127.0.0.1:${gateway.port}`,
    path: `/api/v1/memories${query}`,
    total,
    concurrency: C,
    bodyAt: (i) => JSON.stringify(workload.message(pass, i)),
    timeoutMs: 30_000,
  });
  const accepted = successes(load.statuses);
  const reached = await waitForCount(db, before + accepted, storeTimeoutMs, () => died);
  const cpu1 = monitor.cpu();
  const storedEnd = reached.reachedAt ?? performance.now();
  const stored = reached.count - before;
  const transactions = await storingTransactions(db, `${pass}_`);
  return {
    sent: total,
    converter_transactions: transactions,
    messages_per_transaction: transactions > 0 ? round(stored / transactions, 1) : 0,
    accepted,
    accepted_per_s: ratePerSecond(accepted, load.endedAt - load.startedAt),
    statuses: load.statuses,
    latency_ms: summarizeLatencies(load.latenciesMs),
    stored,
    stored_complete: reached.reachedAt !== undefined,
    stored_elapsed_s: round((storedEnd - load.startedAt) / 1000, 3),
    stored_per_s: ratePerSecond(stored, storedEnd - load.startedAt),
    cores: cpuBetween(cpu0, cpu1),
    ...(load.firstError ? { first_error: load.firstError } : {}),
  };
}

async function kafkaPass(
  db: pg.Client,
): Promise<Omit<IngestReport['kafka'], 'fraction_of_ceiling' | 'fraction_of_producer'>> {
  // Fail before the load, not after it, if the records would all end on the dead-letter topic.
  GroupChatInput.parse(JSON.parse(workload.kafkaRecord(0).value));
  const before = await countMessages(db);
  const cpu0 = monitor.cpu();
  const produced = await produceRecords({
    brokers,
    topic: `${topicPrefix}${TOPICS.groupChatInput.name}`,
    total: M,
    chunkSize: chunk,
    recordAt: (i) => workload.kafkaRecord(i),
  });
  progress(
    `produced ${produced.acked} records in ${round((produced.endedAt - produced.startedAt) / 1000, 2)} s; waiting for the converter`,
  );
  const reached = await waitForCount(db, before + produced.acked, storeTimeoutMs, () => died);
  const cpu1 = monitor.cpu();
  const storedEnd = reached.reachedAt ?? performance.now();
  const stored = reached.count - before;
  const transactions = await storingTransactions(db, 'k_');
  return {
    sent: M,
    converter_transactions: transactions,
    messages_per_transaction: transactions > 0 ? round(stored / transactions, 1) : 0,
    accepted: produced.acked,
    accepted_per_s: ratePerSecond(produced.acked, produced.endedAt - produced.startedAt),
    produce_elapsed_s: round((produced.endedAt - produced.startedAt) / 1000, 3),
    stored,
    stored_complete: reached.reachedAt !== undefined,
    stored_elapsed_s: round((storedEnd - produced.startedAt) / 1000, 3),
    stored_per_s: ratePerSecond(stored, storedEnd - produced.startedAt),
    cores: cpuBetween(cpu0, cpu1),
  };
}

async function main(): Promise<IngestReport> {
  const startedAt = new Date().toISOString();
  const background = await backgroundLoad(monitor, waitQuietMs, progress);
  progress(`machine before start: ${JSON.stringify(background)} cores busy`);
  progress(
    `run ${runId}: database ${runName}, topic prefix ${topicPrefix}${profileDir ? `, profiles in ${profileDir}` : ''}`,
  );
  const database = await createDatabase(infra.DATABASE_URL, runName);
  teardowns.push(['database', database.drop]);
  teardowns.push(['topics', () => deleteTopicsWithPrefix(brokers, topicPrefix)]);
  const { gateway, converter } = await startServices(database.url);
  const db = await connect(database.url);
  teardowns.push(['count client', () => db.end()]);
  progress('round trips of Kafka and Postgres, one at a time');
  const roundTrips = await measureRoundTrips({ brokers, topic: `${topicPrefix}bench.probe`, db, samples: 50 });

  if (warmup > 0) {
    progress(`warm-up: ${warmup} POSTs`);
    const w = await httpPass(db, gateway, 'w', warmup, '');
    if (w.accepted < warmup) progress(`warm-up: only ${w.accepted} of ${warmup} accepted: ${w.first_error ?? ''}`);
  }
  progress(`HTTP sync pass: ${N} POSTs at concurrency ${C}`);
  const httpWindow = { fromUs: monotonicUs() };
  const sync = await httpPass(db, gateway, 's', N, '');
  progress(`HTTP sync_mode=false pass: ${N} POSTs`);
  const async_ = await httpPass(db, gateway, 'a', N, '?sync_mode=false');
  const httpSpan: Window = { ...httpWindow, toUs: monotonicUs() };
  progress(`Kafka producer pass: ${M} records`);
  const kafkaWindow = { fromUs: monotonicUs() };
  const kafka = await kafkaPass(db);
  const kafkaSpan: Window = { ...kafkaWindow, toUs: monotonicUs() };
  progress(`COPY ceiling: ${M} rows`);
  const copied = await copyRows(database.url, M, (i) => workload.copyRow(i));
  const copyRate = ratePerSecond(copied.rows, copied.elapsedMs);

  // Stopped here rather than in the teardown: a profile is written only when its process exits.
  await gateway.stop();
  await converter.stop();
  const memory = monitor.peaksMiB();

  const ofCeiling = (rate: number) => (copyRate > 0 ? round(rate / copyRate, 4) : 0);
  const httpSync = { ...sync, fraction_of_ceiling: ofCeiling(sync.stored_per_s) };
  const kafkaFigures = {
    ...kafka,
    fraction_of_ceiling: ofCeiling(kafka.stored_per_s),
    fraction_of_producer: kafka.accepted_per_s > 0 ? round(kafka.stored_per_s / kafka.accepted_per_s, 4) : 0,
  };
  const goals: Goal[] = [
    {
      goal: 'HTTP POSTs stored end to end per s (sync)',
      value: sync.stored_per_s,
      target: '>= 5000',
      pass: sync.stored_complete && sync.stored_per_s >= 5000,
    },
    { goal: 'HTTP p99 latency ms (sync)', value: sync.latency_ms.p99, target: '< 25', pass: sync.latency_ms.p99 < 25 },
    {
      goal: 'Kafka-producer path stored per s, of the raw producer rate',
      value: kafkaFigures.fraction_of_producer,
      target: '>= 0.5',
      pass: kafka.stored_complete && kafkaFigures.fraction_of_producer >= 0.5,
    },
    {
      goal: 'Kafka-producer path stored per s',
      value: kafka.stored_per_s,
      target: '>= 30000',
      pass: kafka.stored_complete && kafka.stored_per_s >= 30000,
    },
  ];
  const cpuModel = os.cpus()[0]?.model.trim() ?? 'unknown';
  return {
    run: {
      id: runId,
      started_at: startedAt,
      cpus: os.availableParallelism(),
      cpu_model: cpuModel,
      mem_total_mib: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      profile: profileDir !== undefined,
    },
    settings: { http_messages: N, concurrency: C, groups: G, kafka_messages: M, kafka_chunk: chunk, warmup },
    http_sync: httpSync,
    http_async: { ...async_, fraction_of_ceiling: ofCeiling(async_.stored_per_s) },
    kafka: kafkaFigures,
    background_cores: background,
    copy: { rows: copied.rows, elapsed_s: round(copied.elapsedMs / 1000, 3), rows_per_s: copyRate },
    memory_mib: memory,
    goals,
    round_trips: roundTrips,
    ...(profileDir
      ? {
          profile: {
            'gateway, HTTP passes': summarizeProfiles(join(profileDir, 'gateway'), 15, httpSpan)[0],
            'converter, HTTP passes': summarizeProfiles(join(profileDir, 'converter'), 15, httpSpan)[0],
            'converter, Kafka-producer pass': summarizeProfiles(join(profileDir, 'converter'), 15, kafkaSpan)[0],
          },
        }
      : {}),
  };
}

try {
  const report = await main();
  await teardowns.run();
  console.log(renderReport(report));
  console.log(JSON.stringify({ bench: 'ingest', ...report }));
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await teardowns.run();
  process.exitCode = 1;
}
