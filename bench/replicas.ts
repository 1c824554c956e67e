/**
 * `npm run bench:replicas`: read throughput of one read API process with 0, 1 and 2 streaming
 * replicas behind it (DATABASE_REPLICA_URLS), in one run, as ratios to 0. A primary and two
 * replicas of the benchmark's own (scripts/infra/postgres-replica.sh, other ports) hold
 * `--conversations` EverMemOS groups of `--messages` messages; `--concurrency` closed-loop clients
 * alternate a group's listing and a keyword search in it, while `--write-rate` small commits a
 * second keep the primary's WAL moving as a live deployment's writes do (so every replica read
 * waits for replay, as it would then). Three read APIs (0, 1 and 2 replicas) take turns for
 * `--seconds` each, `--cycles` times; printed per configuration: the rate over all its passes, its
 * ratio to 0, the median and range of the per-cycle ratios, where the reads ran (the read API's
 * own counters) and the read API's resident memory.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { createLogger } from '@memstream/logging';
import { insertSearchRowsSql, openStore } from '@memstream/store';
import { freePort } from '../harness/processes.js';
import { ReplicatedPostgres } from '../harness/replicated-postgres.js';
import { positiveInt } from './lib/flags.js';
import { treeMemory } from './lib/process-memory.js';
import { startService, waitHealthy } from './lib/services.js';
import { round, summarizeLatencies } from './lib/stats.js';
import { table } from './lib/table.js';
import { Teardowns } from './lib/teardowns.js';
import { WORDS } from './lib/words.js';

const { values: flags } = parseArgs({
  options: {
    conversations: { type: 'string', default: '200' },
    messages: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '4' },
    cycles: { type: 'string', default: '5' },
    'write-rate': { type: 'string', default: '50' },
  },
});
const CONVERSATIONS = positiveInt('conversations', flags.conversations);
const MESSAGES = positiveInt('messages', flags.messages);
const CONCURRENCY = positiveInt('concurrency', flags.concurrency);
const SECONDS = positiveInt('seconds', flags.seconds);
const CYCLES = positiveInt('cycles', flags.cycles);
const WRITE_RATE = positiveInt('write-rate', flags['write-rate'], 0);
const CONFIGS = [0, 1, 2] as const;

const teardowns = new Teardowns();
const postgres = new ReplicatedPostgres(37432, [37433, 37434], '/tmp/memstream-bench-replicas');
try {
  await postgres.start();
  teardowns.push(['postgres', () => postgres.stop()]);
  const database = await postgres.freshDatabase();
  const log = createLogger({ service: 'bench', level: 'warn' });
  await (
    await openStore({ DATABASE_URL: database, DATABASE_STATEMENT_TIMEOUT_MS: 600_000, DATA_DIR: '.' }, log)
  ).close();
  await seed(database);
  const replicas = postgres.replicaUrls(database);
  await caughtUp(database, replicas);
  const stopWrites = WRITE_RATE > 0 ? writeTicks(database) : async () => undefined;
  teardowns.push(['writes', stopWrites]);

  // One read API per configuration, all started before any load: each pass is a short slice, and
  // the configurations take turns (in a rotating order) cycle after cycle, so a machine whose
  // other load comes and goes weighs on each alike, and a cycle's ratio compares passes seconds apart.
  const apis = await Promise.all(CONFIGS.map((n) => startReadApi(database, replicas.slice(0, n))));
  for (const api of apis) teardowns.push(['read-api', () => api.process.stop()]);
  for (const api of apis) await load(api.origin, 1); // warm-up: connections, plans, JIT
  const totals = CONFIGS.map(() => ({ ok: 0, failed: 0, latencies: [] as number[] }));
  const cycleRatios: number[][] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const rates: number[] = [];
    for (let k = 0; k < CONFIGS.length; k++) {
      const i = (cycle + k) % CONFIGS.length;
      const measured = await load(apis[i]!.origin, SECONDS);
      totals[i]!.ok += measured.ok;
      totals[i]!.failed += measured.failed;
      totals[i]!.latencies.push(...measured.latencies);
      rates[i] = measured.ok / SECONDS;
    }
    cycleRatios.push(rates.map((r) => r / rates[0]!));
  }
  const rows = [];
  for (const [i, n] of CONFIGS.entries()) {
    const metrics = await (await fetch(`${apis[i]!.origin}/metrics`)).text();
    const reads = (outcome: RegExp) =>
      [...metrics.matchAll(/^memstream_replica_reads_total\{([^}]*)\} (\d+)/gm)]
        .filter((m) => outcome.test(m[1]!))
        .reduce((sum, m) => sum + Number(m[2]), 0);
    const latency = summarizeLatencies(Float64Array.from(totals[i]!.latencies));
    const ratios = cycleRatios.map((c) => c[i]!).sort((a, b) => a - b);
    rows.push({
      replicas: n,
      readsPerSecond: Math.round(totals[i]!.ok / (SECONDS * CYCLES)),
      failed: totals[i]!.failed,
      ratio: round(totals[i]!.ok / totals[0]!.ok, 2),
      cycleRatioMedian: round(ratios[Math.floor(ratios.length / 2)]!, 2),
      cycleRatioRange: [round(ratios[0]!, 2), round(ratios.at(-1)!, 2)],
      p50: latency.p50,
      p95: latency.p95,
      onReplica: reads(/outcome="replica"/),
      toPrimary: reads(/outcome="primary_/),
      rssMiB: round(treeMemory(apis[i]!.process.pid).rssKiB / 1024, 1),
    });
  }
  for (const r of rows) console.log(JSON.stringify(r));
  console.log(
    table(
      [
        'replicas',
        'reads/s',
        'ratio to 0',
        'cycle median',
        'p50 ms',
        'p95 ms',
        'on a replica',
        'to primary',
        'RSS MiB',
      ],
      rows.map((r) => [
        r.replicas,
        r.readsPerSecond,
        r.ratio,
        r.cycleRatioMedian,
        r.p50,
        r.p95,
        r.onReplica,
        r.toPrimary,
        r.rssMiB,
      ]),
    ),
  );
} finally {
  await teardowns.run();
}

/** A read API on `replicas` (none: every read on the primary), once healthy. */
async function startReadApi(database: string, replicas: string[]) {
  const port = await freePort();
  const service = startService({
    name: `read-api-${replicas.length}`,
    entry: 'services/api/src/main-read-api.ts',
    env: {
      DATABASE_URL: database,
      DATABASE_REPLICA_URLS: replicas.join(','),
      EMBEDDING_PROVIDER: 'hash',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
  });
  await waitHealthy(service, 180_000);
  return { process: service, origin: `http://127.0.0.1:${port}` };
}

/** Closed loop for `seconds`: each client lists a group, then searches it, and so on. */
async function load(origin: string, seconds: number) {
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  const client = async (c: number) => {
    for (let i = c; performance.now() < until; i += CONCURRENCY) {
      const group = `bench-${i % CONVERSATIONS}`;
      const word = WORDS[i % WORDS.length]!;
      const path =
        i % 2 === 0
          ? `/api/v1/memories?group_id=${group}&limit=20`
          : `/api/v1/memories/search?query=${word}&group_id=${group}&retrieve_method=keyword&top_k=5`;
      const sent = performance.now();
      const res = await pool.request({ path, method: 'GET' });
      await res.body.text();
      latencies.push(performance.now() - sent);
      if (res.statusCode === 200) ok++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, c) => client(c)));
  await pool.close();
  return { ok, failed, latencies: Float64Array.from(latencies) };
}

/** EverMemOS groups of messages and their keyword rows, straight into the primary. */
async function seed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO conversations (id, group_key, source_api, next_seq) SELECT 'bench-' || g, 'bench-' || g, 'evermemos', $2 FROM generate_series(0, $1 - 1) g`,
      [CONVERSATIONS, MESSAGES],
    );
    await client.query(
      `INSERT INTO messages (conversation_id, group_key, seq, message_id, sender_id, sender_name, role, content, created_at, source_api)
       SELECT 'bench-' || c, 'bench-' || c, s, 'b' || c || '-' || s, 'p' || (s % 2), 'Person ' || (s % 2), 'user',
              (SELECT string_agg(($3::text[])[1 + floor(random() * array_length($3::text[], 1))::int], ' ')
               FROM generate_series(1, 14 + 0 * s + 0 * c)),
              now() - ((c * $2 + s) * interval '1 minute'), 'evermemos'
       FROM generate_series(0, $1::int - 1) c, generate_series(0, $2::int - 1) s`,
      [CONVERSATIONS, MESSAGES, WORDS],
    );
    await client.query(
      `WITH ${insertSearchRowsSql(
        'searchable',
        'message',
        `SELECT m.group_key, 'message', m.id::text, m.conversation_id, m.sender_id, m.sender_name || ': ' || m.content,
                m.created_at, ARRAY[m.message_id], to_tsvector('english', m.sender_name || ': ' || m.content), NULL
         FROM messages m`,
      )}
       SELECT count(*) FROM searchable`,
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** Waits until every replica has replayed what the primary flushed after the seed. */
async function caughtUp(primary: string, replicas: string[]): Promise<void> {
  const position = await one<string>(primary, 'SELECT pg_current_wal_flush_lsn()::text AS v');
  for (const url of replicas) {
    while (!(await one<boolean>(url, `SELECT pg_last_wal_replay_lsn() >= '${position}'::pg_lsn AS v`))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function one<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: T }>(sql)).rows[0]!.v;
  } finally {
    await client.end();
  }
}

/** WRITE_RATE one-row commits a second on the primary, until the returned function stops them. */
function writeTicks(url: string): () => Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  void pool.query('CREATE TABLE IF NOT EXISTS bench_ticks (at timestamptz)');
  const timer = setInterval(
    () => void pool.query('INSERT INTO bench_ticks VALUES (now())').catch(() => undefined),
    1000 / WRITE_RATE,
  );
  return async () => {
    clearInterval(timer);
    await pool.end();
  };
}
