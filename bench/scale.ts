/**
 * `npm run bench:scale`: where one node bends. Grows one database step by step (100 thousand to 10
 * million messages by default, ten per conversation, so 10 thousand to 1 million conversations of
 * LoCoMo's turns, resampled), and at each step measures the running services (ingest gateway,
 * converter, indexer with the hash embedder, read API, each its own process on a private database
 * and topic prefix) and prints one JSON line: CPU µs per stored message of the gateway, converter,
 * indexer and PostgreSQL, held writes against single-row INSERTs, the producer path against the
 * raw kafkajs producer and a raw consumer pipeline (raw-pipeline.ts), indexing lag, hybrid search
 * p50/p95 in a group, over a person's conversations and over everything, table and index sizes.
 * The bulk load between steps is scale-load.ts. Before the steps, one line gives what the real
 * (local) embedder costs per message on a sample, since the run itself embeds with the hash one.
 */
import { randomUUID } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { z } from 'zod';
import { embeddingSettings } from '@memstream/config';
import { createEmbedder, createHashEmbedder } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { REPO_ROOT, freePort } from '../harness/processes.js';
import { connect, createDatabase } from './lib/database.js';
import { summarizeProfiles } from './lib/cpu-profile.js';
import { positiveInt } from './lib/flags.js';
import { deleteTopicsWithPrefix } from './lib/kafka-load.js';
import { ProcMonitor } from './lib/proc-monitor.js';
import { checkInvariants, growTo, prepareLoad } from './lib/scale-load.js';
import { sizes } from './lib/scale-measure.js';
import { heldWrites, producerComparison, searches, type StepContext } from './lib/scale-step.js';
import { loadTurns, type Turns } from './lib/scale-workload.js';
import { startService, waitHealthy, type ServiceProcess, type StartOptions } from './lib/services.js';
import { round } from './lib/stats.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:scale -- [options]
  --steps LIST                 database sizes in messages (default 100000,300000,1000000,3000000,10000000)
  --max-steps N                stop after N steps
  --max-minutes M              start no step after M minutes (a step already started finishes)
  --messages-per-conversation K  (default 10; every step a multiple of it)
  --held-writes N              held HTTP writes per step (default 2000)
  --concurrency C              held writes in flight (default 16)
  --producer-messages M        records per producer pass (default 20000)
  --producer-groups G          fresh conversations a producer pass writes (default 200)
  --kafka-chunk K              records per producer send (default 1000)
  --rounds R                   alternated producer-path and raw-pipeline rounds per step (default 2)
  --paused-rounds R            producer passes with the indexer paused (storing alone), each after a raw round (default 1)
  --queries Q                  searches per scope and step (default 30)
  --dimension D                the hash embedder's dimension (default 384, the local model's)
  --embedding-sample S         turns embedded by the real local model first (default 200; 0: skip)
  --turns PATH                 LoCoMo JSON to draw turns from (default ../shared/data/locomo-dev.json)
  --load-chunk N               messages per bulk-load transaction (default 50000)
  --store-timeout-s S          how long a pass may take to be stored or indexed (default 600)
  --indexer-writers N          the indexer's INDEXER_WRITERS (default: the service's own, 2): its vector writes at once
  --indexer-pool N             the indexer's DATABASE_POOL_MAX (default: the service's own, 10)
  --indexer-yield-lag N        the indexer's INDEXER_YIELD_LAG (default: the service's own, 1000; 0: it never waits for the converter)
  --converter-node-args=ARGS   Node and V8 flags for the converter's process, space-separated, after an = (default none)
  --profile                    run the converter with --cpu-prof; at the end, one line says where its time went in each producer pass
  --profile-dir DIR            where its profile goes (default /tmp/memstream-bench-prof/<run>)
  --keep-database              leave the database in place at the end (its name is in the first progress line), to query it`;

const { values: flags } = parseArgs({
  options: {
    steps: { type: 'string', default: '100000,300000,1000000,3000000,10000000' },
    'max-steps': { type: 'string', default: '1000' },
    'max-minutes': { type: 'string', default: '100000' },
    'messages-per-conversation': { type: 'string', default: '10' },
    'held-writes': { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    'producer-messages': { type: 'string', default: '20000' },
    'producer-groups': { type: 'string', default: '200' },
    'kafka-chunk': { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    'paused-rounds': { type: 'string', default: '1' },
    queries: { type: 'string', default: '30' },
    dimension: { type: 'string', default: '384' },
    'embedding-sample': { type: 'string', default: '200' },
    turns: { type: 'string', default: resolve(REPO_ROOT, '../shared/data/locomo-dev.json') },
    'load-chunk': { type: 'string', default: '50000' },
    'store-timeout-s': { type: 'string', default: '600' },
    'indexer-pool': { type: 'string' },
    'indexer-yield-lag': { type: 'string' },
    'indexer-writers': { type: 'string' },
    'converter-node-args': { type: 'string', default: '' },
    profile: { type: 'boolean', default: false },
    'profile-dir': { type: 'string' },
    'keep-database': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}
const perConversation = positiveInt('messages-per-conversation', flags['messages-per-conversation']);
const steps = flags.steps.split(',').map((s) => positiveInt('steps', s.trim()));
for (const [i, s] of steps.entries())
  if (s % perConversation !== 0 || (i > 0 && s <= steps[i - 1]!))
    throw new Error(`--steps must grow, each a multiple of --messages-per-conversation (${perConversation})`);
const maxSteps = positiveInt('max-steps', flags['max-steps']);
const maxMinutes = positiveInt('max-minutes', flags['max-minutes']);
const dimension = positiveInt('dimension', flags.dimension);
const embeddingSample = positiveInt('embedding-sample', flags['embedding-sample'], 0);
const loadChunk = positiveInt('load-chunk', flags['load-chunk']);
const rounds = positiveInt('rounds', flags.rounds);
/** A flag that, left out, leaves the service's own default. */
const optionalInt = (name: 'indexer-pool' | 'indexer-writers' | 'indexer-yield-lag', min = 1) => {
  const value = flags[name];
  return value === undefined ? undefined : positiveInt(name, value, min);
};
const indexerPool = optionalInt('indexer-pool');
const indexerWriters = optionalInt('indexer-writers');
const indexerYieldLag = optionalInt('indexer-yield-lag', 0);
const indexerEnv = {
  ...(indexerPool === undefined ? {} : { DATABASE_POOL_MAX: String(indexerPool) }),
  ...(indexerWriters === undefined ? {} : { INDEXER_WRITERS: String(indexerWriters) }),
  ...(indexerYieldLag === undefined ? {} : { INDEXER_YIELD_LAG: String(indexerYieldLag) }),
};
const converterNodeArgs = flags['converter-node-args'].split(/\s+/).filter((a) => a !== '');
const pausedRounds = positiveInt('paused-rounds', flags['paused-rounds'], 0);
const settings = {
  heldWrites: positiveInt('held-writes', flags['held-writes']),
  concurrency: positiveInt('concurrency', flags.concurrency),
  producerMessages: positiveInt('producer-messages', flags['producer-messages']),
  producerGroups: positiveInt('producer-groups', flags['producer-groups']),
  kafkaChunk: positiveInt('kafka-chunk', flags['kafka-chunk']),
  queries: positiveInt('queries', flags.queries),
  perConversation,
  storeTimeoutMs: positiveInt('store-timeout-s', flags['store-timeout-s']) * 1000,
};

const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL) {
  console.error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run it as `npm run bench:scale`');
  process.exit(2);
}
const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const profileDir = flags.profile ? (flags['profile-dir'] ?? `/tmp/memstream-bench-prof/${runId}`) : undefined;
const runName = `bench_scale_${runId}`;
const topicPrefix = `${runName}.`;
const brokers = KAFKA_BROKERS.split(',');
const monitor = new ProcMonitor(1000);
monitor.watch('bench', process.pid);
const teardowns = new Teardowns(() => monitor.stop());
const progress = (msg: string) => console.error(`[scale ${new Date().toISOString().slice(11, 19)}] ${msg}`);
let died: string | undefined;

async function startServices(url: string): Promise<Record<string, ServiceProcess>> {
  const env = {
    KAFKA_BROKERS: KAFKA_BROKERS!,
    DATABASE_URL: url,
    REDIS_URL: REDIS_URL!,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    CONVERTER_GROUP_ID: `${runName}_converter`,
    INDEXER_GROUP_ID: `${runName}_indexer`,
    EMBEDDING_PROVIDER: 'hash',
    EMBEDDING_DIMENSIONS: String(dimension),
    LOG_LEVEL: 'warn',
  };
  const start = async (
    name: string,
    entry: string,
    own: Record<string, string> = {},
    extra: Pick<StartOptions, 'nodeArgs' | 'profileDir'> = {},
  ) => {
    const svc = startService({ name, entry, ...extra, env: { ...env, ...own, PORT: String(await freePort()) } });
    teardowns.push([name, () => svc.stop()]);
    monitor.watch(name, svc.pid);
    void svc.exited.then((code) => {
      if (svc.stopping) return;
      died = `${name} exited early (${String(code)})`;
      progress(`${died}:\n${svc.tail()}`);
    });
    return svc;
  };
  // The converter first: it runs the migrations.
  const converter = await start(
    'converter',
    'services/converter/src/main.ts',
    {},
    { nodeArgs: converterNodeArgs, ...(profileDir ? { profileDir } : {}) },
  );
  await waitHealthy(converter);
  const others = await Promise.all([
    start('gateway', 'services/api/src/main-gateway.ts'),
    start('indexer', 'services/indexer/src/main.ts', indexerEnv),
    start('read-api', 'services/api/src/main-read-api.ts'),
  ]);
  await Promise.all(others.map((s) => waitHealthy(s)));
  return Object.fromEntries([converter, ...others].map((s) => [s.name, s]));
}

/** The real embedder's cost per message on a sample of the turns, CPU time of this process. */
async function embeddingCost(turns: Turns, sample: number) {
  const settings = z.object(embeddingSettings).parse({});
  const embedder = await createEmbedder(settings, createLogger({ service: 'bench-scale', level: 'warn' }));
  try {
    const texts = Array.from({ length: sample }, (_, i) => turns.texts[(i * 7919) % turns.texts.length]!);
    await embedder.embed(texts.slice(0, 8), 'document'); // the first call allocates
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < texts.length; i += 16) await embedder.embed(texts.slice(i, i + 16), 'document');
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - started;
    return {
      model: embedder.model,
      messages: sample,
      cpu_us_per_message: round((cpu.user + cpu.system) / sample, 0),
      wall_us_per_message: round((wallMs * 1000) / sample, 0),
    };
  } finally {
    await embedder.close();
  }
}

/**
 * Whether the disk under the database holds the step: the bytes a message has taken so far (the
 * whole database, baseline table included) times the messages to come, with a fifth more and
 * twice `max_wal_size` for the write-ahead log and the index builds. Undefined when the data
 * directory is not on this machine or no message is stored yet.
 */
async function roomFor(client: pg.Client, stored: number, target: number) {
  if (stored === 0) return undefined;
  const { rows } = await client.query<{ dir: string; db: string; wal: string }>(
    `SELECT current_setting('data_directory') AS dir, pg_database_size(current_database()) AS db,
            pg_size_bytes(current_setting('max_wal_size')) AS wal`,
  );
  const { dir, db, wal } = rows[0]!;
  const fsStat = await statfs(dir).catch(() => undefined);
  if (!fsStat) return undefined;
  const gib = (bytes: number) => round(bytes / 2 ** 30, 1);
  const perMessage = Number(db) / stored;
  const need = (target - stored) * perMessage * 1.2 + 2 * Number(wal);
  const free = fsStat.bavail * fsStat.bsize;
  return { bytes_per_message: Math.round(perMessage), need_gib: gib(need), free_gib: gib(free), fits: need <= free };
}

async function main(): Promise<void> {
  const began = performance.now();
  const turns = loadTurns(flags.turns);
  progress(`run ${runId}: database ${runName}, ${turns.texts.length} ${turns.source} turns`);
  const database = await createDatabase(DATABASE_URL!, runName);
  if (!flags['keep-database']) teardowns.push(['database', database.drop]);
  teardowns.push(['topics', () => deleteTopicsWithPrefix(brokers, topicPrefix)]);
  const services = await startServices(database.url);
  const client = await connect(database.url);
  teardowns.push(['client', () => client.end()]);
  await client.query('SET statement_timeout = 0');
  const hash = createHashEmbedder({ dimension });
  await prepareLoad(client, turns, hash);
  if (embeddingSample > 0) {
    const cost = await embeddingCost(turns, embeddingSample).catch((err: unknown) => ({ error: String(err) }));
    console.log(JSON.stringify({ bench: 'scale', run: runId, real_embedding: cost }));
  }
  const ctx: StepContext = {
    client,
    database: runName,
    url: database.url,
    brokers,
    topicPrefix,
    monitor,
    watched: new Map([['bench', process.pid], ...Object.values(services).map((s) => [s.name, s.pid] as const)]),
    gatewayOrigin: `http://127.0.0.1:${services['gateway']!.port}`,
    readOrigin: `http://127.0.0.1:${services['read-api']!.port}`,
    turns,
    settings,
    died: () => died,
    progress,
    passes: [],
  };
  // The bulk load's next message index: the measured passes add messages of their own, so each
  // step loads what brings the store to the step's size, in whole conversations.
  let bulk = 0;
  let stored = 0;
  for (const [index, target] of steps.entries()) {
    if (index >= maxSteps || (performance.now() - began) / 60_000 > maxMinutes) break;
    const stepStarted = performance.now();
    const loadAtStart = os.loadavg()[0]!;
    const adding = Math.max(0, Math.floor((target - stored) / perConversation) * perConversation);
    const room = await roomFor(client, stored, target);
    if (room && !room.fits) {
      // Where the disk bends: the step is not started, and the line says so.
      console.log(
        JSON.stringify({ bench: 'scale', run: runId, step: target, messages: stored, stopped: 'disk', disk: room }),
      );
      break;
    }
    progress(`step ${target}: loading ${adding} messages onto ${stored}`);
    const load = await growTo(
      client,
      { from: bulk, to: bulk + adding, perConversation, chunk: loadChunk, model: hash.model, dimension },
      progress,
    );
    bulk += adding;
    const conversations = bulk / perConversation;
    const before = await checkInvariants(client);
    progress(`step ${target}: loaded at ${load.messages_per_s}/s; held writes`);
    const held = await heldWrites(ctx, target, conversations);
    progress(`step ${target}: held ${held.per_s}/s (raw ${held.raw_insert_per_s}/s); producer path`);
    const { producer_path, raw_pipeline } = await producerComparison(ctx, target, rounds, pausedRounds);
    progress(`step ${target}: producer path ${producer_path.of_raw_pipeline} of the raw pipeline; searches`);
    const search = await searches(ctx, conversations);
    const after = await checkInvariants(client);
    stored = after.messages;
    console.log(
      JSON.stringify({
        bench: 'scale',
        run: runId,
        step: target,
        messages: before.messages,
        conversations: (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM conversations')).rows[0]!.n,
        text: turns.source,
        ...(indexerPool === undefined ? {} : { indexer_pool: indexerPool }),
        ...(indexerWriters === undefined ? {} : { indexer_writers: indexerWriters }),
        ...(indexerYieldLag === undefined ? {} : { indexer_yield_lag: indexerYieldLag }),
        ...(converterNodeArgs.length === 0 ? {} : { converter_node_args: converterNodeArgs }),
        dimension,
        load,
        held_writes: held,
        producer_path,
        raw_pipeline,
        search_ms: search,
        sizes_mib: await sizes(client),
        invariants: { after_load: before, after_step: after },
        memory_mib: monitor.peaksMiB(),
        step_s: round((performance.now() - stepStarted) / 1000, 1),
        // On a shared machine the figures carry everyone else's load: the 1-minute load average
        // when the step began and when it ended.
        load_avg_1m: [round(loadAtStart, 1), round(os.loadavg()[0]!, 1)],
      }),
    );
  }
  if (profileDir !== undefined) {
    // A process writes its profile when it exits.
    await services['converter']!.stop();
    const converterProfile = ctx.passes.map(({ pass, window }) => {
      const summary = summarizeProfiles(profileDir, 10, window)[0];
      return {
        pass,
        wall_ms: Math.round((window.toUs - window.fromUs) / 1000),
        busy_ms: summary?.busyMs ?? 0,
        by_caller_ms: Object.fromEntries((summary?.byCaller ?? []).map((r) => [r.area, r.selfMs])),
        top_functions_ms: Object.fromEntries((summary?.topFunctions ?? []).map((r) => [r.name, r.selfMs])),
      };
    });
    console.log(
      JSON.stringify({ bench: 'scale', run: runId, profile_dir: profileDir, converter_profile: converterProfile }),
    );
  }
}

try {
  await main();
} catch (err) {
  console.error(`[scale] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await teardowns.run();
}
