/**
 * `npm run bench:ark`: ARK's memory API in the distributed mode on the real services. Starts a
 * converter, the ingest gateway (ARK's writes) and one read-api process (two with --replicas 2:
 * streams on the second, so live delivery crosses read API processes through Redis) on a fresh database and topic prefix,
 * then measures `POST /messages` (200 = stored) for batches of 1, 10 and 100 messages, and the
 * time from a POST to its frame on every open SSE stream of the session, and the time from a chunk
 * written on ARK's controller relay (one POST held open) to its line at ark-api's readers. Prints tables, the
 * issue's goal with PASS/FAIL, then every figure as one JSON line.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { request } from 'undici';
import { freePort } from '../harness/processes.js';
import { renderReport, type ArkReport, type BatchPassFigures, type Goal } from './lib/ark-report.js';
import { ArkWorkload, MESSAGE_CHARS } from './lib/ark-workload.js';
import { connect, countMessages, createDatabase } from './lib/database.js';
import { runHttpLoad, successes } from './lib/http-load.js';
import { deleteTopicsWithPrefix } from './lib/kafka-load.js';
import { measureLiveDelivery } from './lib/live-delivery.js';
import { measureRelayDelivery } from './lib/relay-delivery.js';
import { backgroundLoad, cpuBetween, ProcMonitor } from './lib/proc-monitor.js';
import { startService, waitHealthy, type ServiceProcess } from './lib/services.js';
import { ratePerSecond, round, summarizeLatencies } from './lib/stats.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:ark -- [options]
  --replicas R          read-api processes (default 1); writes go to the gateway, and with 2 or
                        more the streams are read on the second, across Redis
  --concurrency C       POSTs open at once, one keep-alive connection each (default 16)
  --sessions S          sessions the throughput passes spread over (default 32)
  --requests-1 N        requests of 1 message (default 2000)
  --requests-10 N       requests of 10 messages (default 1000)
  --requests-100 N      requests of 100 messages (default 200)
  --warmup W            1-message POSTs before measuring, not counted (default 200)
  --streams K           SSE streams open during the live pass (default 20)
  --live-sessions L     sessions the streams and live POSTs are spread over (default 4)
  --live-posts M        single-message POSTs of the live pass (default 500)
  --live-interval-ms I  one live POST every I ms, open loop (default 5)
  --frame-timeout-s T   how long to wait for frames still owed after the last POST (default 15)
  --relay-readers R     readers of the controller relay pass, ark-api's way (default 5)
  --relay-chunks N      chunks written on the one open relay POST (default 300)
  --relay-interval-ms I one chunk every I ms on the relay, open loop (default 20)
  --wait-quiet-s S      first wait up to S seconds for other load to drop below 0.3 cores (default 0)`;

function parseFlags() {
  try {
    return parseArgs({
      options: {
        replicas: { type: 'string', default: '1' },
        concurrency: { type: 'string', default: '16' },
        sessions: { type: 'string', default: '32' },
        'requests-1': { type: 'string', default: '2000' },
        'requests-10': { type: 'string', default: '1000' },
        'requests-100': { type: 'string', default: '200' },
        warmup: { type: 'string', default: '200' },
        streams: { type: 'string', default: '20' },
        'live-sessions': { type: 'string', default: '4' },
        'live-posts': { type: 'string', default: '500' },
        'live-interval-ms': { type: 'string', default: '5' },
        'frame-timeout-s': { type: 'string', default: '15' },
        'relay-readers': { type: 'string', default: '5' },
        'relay-chunks': { type: 'string', default: '300' },
        'relay-interval-ms': { type: 'string', default: '20' },
        'wait-quiet-s': { type: 'string', default: '0' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
}
const flags = parseFlags();
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

function atLeast(name: string, value: string, min: number, whole = true): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (whole && !Number.isInteger(n)) || n < min) {
    console.error(`--${name} must be ${whole ? 'an integer' : 'a number'} >= ${min}, got ${value}\n\n${HELP}`);
    process.exit(2);
  }
  return n;
}
const integer = (name: string, value: string, min: number) => atLeast(name, value, min);

const replicas = integer('replicas', flags.replicas, 1);
const C = integer('concurrency', flags.concurrency, 1);
const S = integer('sessions', flags.sessions, 1);
const passes: Array<[size: number, requests: number]> = [
  [1, integer('requests-1', flags['requests-1'], 0)],
  [10, integer('requests-10', flags['requests-10'], 0)],
  [100, integer('requests-100', flags['requests-100'], 0)],
];
const warmup = integer('warmup', flags.warmup, 0);
const K = integer('streams', flags.streams, 1);
const L = integer('live-sessions', flags['live-sessions'], 1);
const M = integer('live-posts', flags['live-posts'], 1);
const intervalMs = atLeast('live-interval-ms', flags['live-interval-ms'], 0, false);
const frameTimeoutMs = integer('frame-timeout-s', flags['frame-timeout-s'], 1) * 1000;
const waitQuietMs = integer('wait-quiet-s', flags['wait-quiet-s'], 0) * 1000;
const relayReaders = integer('relay-readers', flags['relay-readers'], 1);
const relayChunks = integer('relay-chunks', flags['relay-chunks'], 1);
const relayIntervalMs = atLeast('relay-interval-ms', flags['relay-interval-ms'], 0, false);

const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL) {
  console.error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run it as `npm run bench:ark`');
  process.exit(2);
}

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const runName = `bench_${runId}`;
const topicPrefix = `${runName}.`;
const workload = new ArkWorkload(runId);
const monitor = new ProcMonitor(500);
monitor.watch('bench', process.pid);

const teardowns = new Teardowns(() => monitor.stop());

const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** Replicas restarted because their write path did not hear request outcomes (see `probeWritePath`). */
const restarts: Array<{ replica: string; reason: string }> = [];

async function startServices(dbUrl: string): Promise<ServiceProcess[]> {
  const common = {
    KAFKA_BROKERS: KAFKA_BROKERS!,
    DATABASE_URL: dbUrl,
    REDIS_URL: REDIS_URL!,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    CONVERTER_GROUP_ID: `${runName}_converter`,
    LOG_LEVEL: 'warn',
  };
  const start = async (name: string, entry: string) => {
    const svc = startService({ name, entry, env: { ...common, PORT: String(await freePort()) } });
    teardowns.push([name, () => svc.stop()]);
    monitor.watch(name, svc.pid);
    void svc.exited.then((code) => {
      if (!svc.stopping) progress(`${name} exited early (${String(code)}):\n${svc.tail()}`);
    });
    await waitHealthy(svc);
    return svc;
  };
  // The converter first: it runs the migrations.
  const converter = await start('converter', 'services/converter/src/main.ts');
  // ARK's writes go to the ingest gateway; its streams are read on the read APIs.
  let gateway = await start('ingest-gateway', 'services/api/src/main-gateway.ts');
  for (let attempt = 1; ; attempt++) {
    const problem = await probeWritePath(gateway);
    if (!problem) break;
    progress(`${gateway.name}: ${problem}`);
    if (attempt === 3) throw new Error(`${gateway.name}: ${problem}, after ${attempt} starts`);
    restarts.push({ replica: gateway.name, reason: problem });
    await gateway.stop();
    gateway = await start(gateway.name, 'services/api/src/main-gateway.ts');
  }
  const readers = await Promise.all(
    Array.from({ length: replicas }, (_, n) => start(`read-api-${n + 1}`, 'services/api/src/main-read-api.ts')),
  );
  return [converter, gateway, ...readers];
}

/**
 * One write through the gateway, before anything is measured. A 200 proves its write path hears
 * the converter's outcomes on Redis; a 202 after the sync wait means it does not, and then every
 * write through it would wait out REQUEST_SYNC_TIMEOUT_MS. That happens when the fan-out's
 * SUBSCRIBE races ioredis's connection handshake (redis/ioredis#2037): the subscription is lost
 * on the reconnect that follows, while the process reports itself healthy.
 */
async function probeWritePath(api: ServiceProcess): Promise<string | undefined> {
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${api.port}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(workload.batch('probe', 0, 1, 1)),
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const text = await res.body.text();
  if (res.statusCode === 200) return undefined;
  const answer =
    res.statusCode === 202 ? '202 (accepted, not stored in time)' : `${res.statusCode} ${text.slice(0, 200)}`;
  return `probe write answered ${answer} after ${Math.round(performance.now() - started)} ms: its write path does not hear request outcomes`;
}

async function batchPass(
  db: pg.Client,
  origin: string,
  pass: string,
  size: number,
  requests: number,
): Promise<BatchPassFigures> {
  const before = await countMessages(db);
  const cpu0 = monitor.cpu();
  const load = await runHttpLoad({
    origin,
    path: '/messages',
    total: requests,
    concurrency: C,
    bodyAt: (i) => JSON.stringify(workload.batch(pass, i, size, S)),
    timeoutMs: 60_000,
  });
  const cpu1 = monitor.cpu();
  const counted = (await countMessages(db)) - before;
  const ok = load.statuses['200'] ?? 0;
  const elapsedMs = load.endedAt - load.startedAt;
  return {
    batch_size: size,
    requests,
    statuses: load.statuses,
    non_2xx: requests - successes(load.statuses),
    accepted_not_stored: load.statuses['202'] ?? 0,
    latency_ms: summarizeLatencies(load.latenciesMs),
    elapsed_s: round(elapsedMs / 1000, 3),
    requests_per_s: ratePerSecond(ok, elapsedMs),
    messages_per_s: ratePerSecond(ok * size, elapsedMs),
    messages_promised: ok * size,
    messages_counted: counted,
    cores: cpuBetween(cpu0, cpu1),
    ...(load.firstError ? { first_error: load.firstError } : {}),
  };
}

async function main(): Promise<ArkReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const background = await backgroundLoad(monitor, waitQuietMs, progress);
  progress(`machine before start: ${JSON.stringify(background)} cores busy`);
  progress(`run ${runId}: database ${runName}, topic prefix ${topicPrefix}, ${replicas} read-api process(es)`);
  const database = await createDatabase(DATABASE_URL!, runName);
  teardowns.push(['database', database.drop]);
  teardowns.push(['topics', () => deleteTopicsWithPrefix(KAFKA_BROKERS!.split(','), topicPrefix)]);
  const [, gateway, ...readers] = await startServices(database.url);
  const db = await connect(database.url);
  teardowns.push(['count client', () => db.end()]);
  const writeOrigin = `http://127.0.0.1:${gateway!.port}`;
  const streamApi = readers[Math.min(1, readers.length - 1)]!;

  if (warmup > 0) {
    progress(`warm-up: ${warmup} POSTs of 1 message`);
    const w = await batchPass(db, writeOrigin, 'w', 1, warmup);
    if (w.non_2xx > 0 || w.accepted_not_stored > 0)
      progress(`warm-up answers: ${JSON.stringify(w.statuses)} ${w.first_error ?? ''}`);
  }
  const batches: BatchPassFigures[] = [];
  for (const [size, requests] of passes) {
    if (requests === 0) continue;
    progress(`POST /messages: ${requests} requests of ${size} message(s) at concurrency ${C}`);
    batches.push(await batchPass(db, writeOrigin, `b${size}`, size, requests));
  }

  progress(`live delivery: ${K} streams on ${streamApi.name}, ${L} sessions`);
  const cpu0 = monitor.cpu();
  const live = await measureLiveDelivery({
    writeOrigin,
    streamOrigin: `http://127.0.0.1:${streamApi.port}`,
    sessions: Array.from({ length: L }, (_, n) => workload.sessionOf('live', n)),
    streams: K,
    posts: M,
    intervalMs,
    tokenOf: (i) => `live_${runId}_${i}`,
    bodyOf: (session, token, i) => workload.liveBatch(session, token, i),
    frameTimeoutMs,
    progress,
  });
  const liveCores = cpuBetween(cpu0, monitor.cpu());

  progress(`controller relay: one open POST, ${relayChunks} chunks, ${relayReaders} ark-api readers`);
  const cpu2 = monitor.cpu();
  const relay = await measureRelayDelivery({
    writeOrigin,
    streamOrigin: `http://127.0.0.1:${streamApi.port}`,
    query: `openai-query-${runId}.relay`,
    readers: relayReaders,
    chunks: relayChunks,
    intervalMs: relayIntervalMs,
    frameTimeoutMs,
    progress,
  });
  const relayCores = cpuBetween(cpu2, monitor.cpu());
  const memory = monitor.peaksMiB();

  const goals: Goal[] = [
    {
      goal: 'p99 from POST to frame under 50 ms in the distributed mode (every frame received)',
      value: live.delivery_ms.p99,
      target: '< 50 ms, 0 missing',
      pass: live.delivery_ms.p99 < 50 && live.frames_missing === 0 && live.frames_received > 0,
    },
    {
      goal: "p99 from a chunk written on the controller's open relay POST to its line at a reader connected before it, under 100 ms (every chunk, [DONE] at every reader)",
      value: relay.delivery_ms.p99,
      target: '< 100 ms, 0 missing',
      pass:
        relay.delivery_ms.p99 < 100 &&
        relay.frames_received === relay.frames_expected &&
        relay.readers_done === relay.readers &&
        relay.complete_status === 200,
    },
  ];
  return {
    run: {
      id: runId,
      started_at: startedAt,
      elapsed_s: round((performance.now() - started) / 1000, 1),
      cpus: os.availableParallelism(),
      cpu_model: os.cpus()[0]?.model.trim() ?? 'unknown',
      mem_total_mib: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    settings: {
      replicas,
      stream_replica: streamApi.name,
      concurrency: C,
      sessions: S,
      message_chars: MESSAGE_CHARS,
      warmup,
      requests_1: passes[0]![1],
      requests_10: passes[1]![1],
      requests_100: passes[2]![1],
      streams: K,
      live_sessions: L,
      live_posts: M,
      live_interval_ms: intervalMs,
      relay_readers: relayReaders,
      relay_chunks: relayChunks,
      relay_interval_ms: relayIntervalMs,
    },
    background_cores: background,
    restarts,
    batches,
    live: { ...live, cores: liveCores },
    relay: { ...relay, cores: relayCores },
    memory_mib: memory,
    goals,
  };
}

try {
  const report = await main();
  await teardowns.run();
  const processes = ['converter', 'ingest-gateway', ...Array.from({ length: replicas }, (_, n) => `read-api-${n + 1}`)];
  console.log(renderReport(report, processes));
  console.log(JSON.stringify({ bench: 'ark', ...report }));
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await teardowns.run();
  process.exitCode = 1;
}
