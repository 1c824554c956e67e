/**
 * `npm run bench:ryw`: how soon an acknowledged write can be found, under write load. While held
 * messages are written at `--load-rate` a second (EverMemOS `POST /api/v1/memories`), probes
 * write a message with a word no other message holds, each in a group of its own, and from the
 * moment the 200 is read search for it by keyword until found (acknowledged → keyword-searchable),
 * then poll its group's memory stats until its vector is there (acknowledged → vector-indexed).
 * A time is from reading the acknowledgement to the start of the first call that saw it, so it is
 * exact to the poll interval for vectors and 0 when the first search found it. The first keyword and hybrid searches are counted apart:
 * read-your-writes means both find every probe.
 *
 * The embedded mode as `npm start` runs it, by default; `--distributed` runs the converter,
 * indexer, gateway and read API as processes of their own on Kafka, PostgreSQL and Redis
 * (`npm run bench:ryw -- --distributed`), writes to the gateway and searches on the read API.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startHealthy } from '../harness/embedded-process.js';
import { freePort } from '../harness/processes.js';
import { createDatabase } from './lib/database.js';
import { positiveInt } from './lib/flags.js';
import { startService, waitHealthy, type ServiceProcess } from './lib/services.js';
import { round, summarizeLatencies, type LatencySummary } from './lib/stats.js';
import { section, table } from './lib/table.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:ryw -- [options]
  --probes N             probe writes, each searched for until found (default 200)
  --probe-concurrency P  probes in flight (default 4)
  --load-rate R          held writes a second beside the probes, the write load (default 20)
  --load-lanes L         at most this many of them in flight (default 8)
  --poll-ms M            pause between two looks for one probe's vector (default 10)
  --vector-timeout-s S   how long a probe waits for its vector (default 300)
  --env KEY=VALUE        extra environment for the server(s) (repeatable), e.g. EMBEDDING_PROVIDER=hash
  --distributed          each service a process of its own on Kafka, PostgreSQL and Redis`;

const { values: flags } = parseArgs({
  options: {
    probes: { type: 'string', default: '200' },
    'probe-concurrency': { type: 'string', default: '4' },
    'load-rate': { type: 'string', default: '20' },
    'load-lanes': { type: 'string', default: '8' },
    'poll-ms': { type: 'string', default: '10' },
    'vector-timeout-s': { type: 'string', default: '300' },
    env: { type: 'string', multiple: true, default: [] },
    distributed: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}
const PROBES = positiveInt('probes', flags.probes);
const PROBE_CONCURRENCY = positiveInt('probe-concurrency', flags['probe-concurrency']);
const LOAD_RATE = positiveInt('load-rate', flags['load-rate']);
const LOAD_LANES = positiveInt('load-lanes', flags['load-lanes'], 0);
const POLL_MS = positiveInt('poll-ms', flags['poll-ms'], 0);
const VECTOR_TIMEOUT_MS = positiveInt('vector-timeout-s', flags['vector-timeout-s']) * 1000;
const extraEnv = Object.fromEntries(
  flags.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const run = randomUUID().replaceAll('-', '').slice(0, 10);
const teardowns = new Teardowns();
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Target {
  readonly writeBase: string;
  readonly readBase: string;
  readonly mode: string;
}

async function startEmbeddedMode(): Promise<Target> {
  const dataDir = await mkdtemp(join(os.tmpdir(), 'memstream-bench-ryw-'));
  teardowns.push(['data dir', () => rm(dataDir, { recursive: true, force: true })]);
  const { proc } = await startHealthy({ dataDir, env: extraEnv }, (p) => teardowns.push(['server', () => p.stop()]));
  return { writeBase: proc.base, readBase: proc.base, mode: 'embedded (`npm start`, one process group)' };
}

async function startDistributedMode(): Promise<Target> {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: run through \`npm run bench:ryw -- --distributed\``);
    return value;
  };
  const db = await createDatabase(need('DATABASE_URL'), `bench_ryw_${run}`);
  teardowns.push(['database', () => db.drop()]);
  const common = {
    KAFKA_BROKERS: need('KAFKA_BROKERS'),
    DATABASE_URL: db.url,
    REDIS_URL: need('REDIS_URL'),
    KAFKA_TOPIC_PREFIX: `bench_${run}_`,
    CONVERTER_GROUP_ID: `bench_${run}_converter`,
    INDEXER_GROUP_ID: `bench_${run}_indexer`,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const started: ServiceProcess[] = [];
  teardowns.push(['services', () => Promise.all(started.map((s) => s.stop()))]);
  const start = async (name: string) => {
    const svc = startService({ name, entry: name, compiled: true, env: { ...common, PORT: String(await freePort()) } });
    started.push(svc);
    await waitHealthy(svc);
    return svc;
  };
  await start('converter'); // first: it runs the migrations
  const [, gateway, readApi] = await Promise.all([start('indexer'), start('ingest-gateway'), start('read-api')]);
  return {
    writeBase: `http://127.0.0.1:${gateway.port}`,
    readBase: `http://127.0.0.1:${readApi.port}`,
    mode: 'distributed (converter, indexer, gateway, read API as processes on Kafka, PostgreSQL, Redis)',
  };
}

/** One POST with a JSON body; the status and the parsed answer. */
async function post<T>(pool: Pool, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await pool.request({
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as T };
}

const message = (group: string, id: string, content: string) => ({
  group_id: group,
  message_id: id,
  create_time: new Date().toISOString(),
  sender: 'u1',
  sender_name: 'Probe',
  content,
});

type Method = 'keyword' | 'hybrid';

/** Whether a search of `group` by `method` returns the message `id`. */
async function finds(pool: Pool, group: string, word: string, id: string, method: Method): Promise<boolean> {
  const res = await post<{ result?: { memories: Array<{ id: string }> } }>(pool, '/api/v1/memories/search', {
    query: word,
    group_id: group,
    retrieve_method: method,
    memory_types: ['message'],
    top_k: 10,
  });
  if (res.status !== 200) throw new Error(`search ${method} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.result!.memories.some((m) => m.id === id);
}

/**
 * Whether the group's one message has its vector, from the group's memory stats. Not by vector
 * search: each search embeds its query, and queries go before documents in the embedder's queue,
 * so polling by search would hold back the very indexing it waits for.
 */
async function hasVector(pool: Pool, group: string): Promise<boolean> {
  const res = await pool.request({ path: `/api/v1/stats/memory?group_id=${encodeURIComponent(group)}`, method: 'GET' });
  const body = (await res.body.json()) as { result?: { current_vectors?: number } };
  if (res.statusCode !== 200) throw new Error(`memory stats answered ${res.statusCode}: ${JSON.stringify(body)}`);
  return (body.result?.current_vectors ?? 0) >= 1;
}

interface Probe {
  readonly writeMs: number;
  readonly keywordMs: number;
  readonly vectorMs: number | undefined;
  readonly firstKeyword: boolean;
  readonly firstHybrid: boolean;
}

async function probe(write: Pool, read: Pool, i: number): Promise<Probe> {
  const group = `ryw_probe_${run}_${i}`;
  const id = `p${i}`;
  const word = `rywprobe${run}x${i}`;
  const sent = performance.now();
  const res = await post<unknown>(
    write,
    '/api/v1/memories',
    message(group, id, `Probe ${i} carries the word ${word} and a few ordinary ones about lunch.`),
  );
  if (res.status !== 200) throw new Error(`probe write answered ${res.status}: ${JSON.stringify(res.body)}`);
  const acked = performance.now();
  const [firstKeyword, firstHybrid] = await Promise.all([
    finds(read, group, word, id, 'keyword'),
    finds(read, group, word, id, 'hybrid'),
  ]);
  let keywordMs = 0;
  if (!firstKeyword) {
    for (;;) {
      const at = performance.now();
      if (await finds(read, group, word, id, 'keyword')) {
        keywordMs = at - acked;
        break;
      }
      if (POLL_MS > 0) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  let vectorMs: number | undefined;
  while (performance.now() - acked < VECTOR_TIMEOUT_MS) {
    const at = performance.now();
    if (await hasVector(read, group)) {
      vectorMs = at - acked;
      break;
    }
    if (POLL_MS > 0) await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { writeMs: acked - sent, keywordMs, vectorMs, firstKeyword, firstHybrid };
}

/**
 * Held writes at `rate` a second, paced (open loop: the schedule does not wait for answers), with
 * at most `lanes` in flight, until `stop` resolves. Flat out instead, a write load past the
 * indexer's pace would only measure how long its backlog has grown by the time a probe is written.
 */
async function writeLoad(
  pool: Pool,
  rate: number,
  lanes: number,
  stop: Promise<void>,
): Promise<{ writes: number; ms: number }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  let writes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let n = 0; !stopped; n++) {
        const due = started + ((n * lanes + lane) * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stopped) break;
        const res = await post<unknown>(
          pool,
          '/api/v1/memories',
          message(`ryw_load_${run}_${lane}`, `l${n}`, `Load ${n} of lane ${lane}: the meeting moved to Thursday.`),
        );
        if (res.status === 200) writes++;
      }
    }),
  );
  return { writes, ms: performance.now() - started };
}

const fmt = (s: LatencySummary) => [s.p50, s.p99, s.max].map((v) => round(v, 2));

async function main(): Promise<void> {
  const target = flags.distributed ? await startDistributedMode() : await startEmbeddedMode();
  progress(`${target.mode}: ${PROBES} probes, ${PROBE_CONCURRENCY} in flight, load ${LOAD_RATE} writes/s`);
  const write = new Pool(target.writeBase, { connections: LOAD_LANES + PROBE_CONCURRENCY });
  const read = new Pool(target.readBase, { connections: PROBE_CONCURRENCY * 2 });
  teardowns.push(['pools', () => Promise.all([write.close(), read.close()])]);

  let release: () => void = () => undefined;
  const done = new Promise<void>((r) => (release = r));
  const load = writeLoad(write, LOAD_RATE, LOAD_LANES, done);
  const probes: Probe[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PROBE_CONCURRENCY }, async () => {
      for (let i = next++; i < PROBES; i = next++) {
        probes.push(await probe(write, read, i));
        if (probes.length % 20 === 0) progress(`${probes.length} of ${PROBES} probes`);
      }
    }),
  );
  release();
  const background = await load;

  const summary = (values: number[]) => summarizeLatencies(Float64Array.from(values));
  const keyword = summary(probes.map((p) => p.keywordMs));
  const vectored = probes.filter((p) => p.vectorMs !== undefined);
  const vector = summary(vectored.map((p) => p.vectorMs!));
  const writeLatency = summary(probes.map((p) => p.writeMs));
  const firstKeyword = probes.filter((p) => p.firstKeyword).length;
  const firstHybrid = probes.filter((p) => p.firstHybrid).length;
  const loadRate = round((background.writes * 1000) / background.ms);

  console.log(section(`Read-your-writes search, ${target.mode}`));
  console.log(
    `${PROBES} probes (${PROBE_CONCURRENCY} in flight) beside held writes at ${LOAD_RATE}/s (${loadRate} acknowledged/s, at most ${LOAD_LANES} in flight); vector polled every ${POLL_MS} ms\n`,
  );
  console.log(
    table(
      ['acknowledged ->', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ['keyword-searchable', ...fmt(keyword)],
        [`vector-indexed (${vectored.length} of ${PROBES} within ${VECTOR_TIMEOUT_MS / 1000} s)`, ...fmt(vector)],
        ['(the probe write itself, sent -> 200)', ...fmt(writeLatency)],
      ],
    ),
  );
  console.log(
    `\nfound by the first search after the acknowledgement: keyword ${firstKeyword} of ${PROBES}, hybrid ${firstHybrid} of ${PROBES}`,
  );
  console.log(
    JSON.stringify({
      bench: 'ryw',
      run,
      mode: flags.distributed ? 'distributed' : 'embedded',
      settings: {
        probes: PROBES,
        probe_concurrency: PROBE_CONCURRENCY,
        load_rate: LOAD_RATE,
        load_lanes: LOAD_LANES,
        poll_ms: POLL_MS,
        ...extraEnv,
      },
      load_writes_per_s: loadRate,
      ack_to_keyword_ms: keyword,
      ack_to_vector_ms: vector,
      vector_indexed: vectored.length,
      first_search_found: { keyword: firstKeyword, hybrid: firstHybrid, of: PROBES },
      probe_write_ms: writeLatency,
    }),
  );
}

try {
  await main();
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await teardowns.run();
}
