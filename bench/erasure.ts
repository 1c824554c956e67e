/**
 * `npm run bench:erasure`: how long erasing a person takes (issue 30), as an admin asks for it:
 * POST /v1/admin/erasures, then the receipt polled until `completed`. The person sends 10,000
 * messages and has 1,000 memories of their own (with their episodes, the other memories of those
 * episodes, search rows and vectors, summaries), among other people's data: a partner in each
 * of their groups, and people with conversations of their own (bench/lib/erasure-seed.ts). In
 * the same run, on the same database, a second person seeded alike is removed by plain SQL in one
 * transaction (bench/lib/raw-erasure.ts): the floor the job is compared with. Runs the embedded
 * mode (`npm start`) and the distributed one (gateway, read API, converter, indexer, extractor on
 * the real Kafka, PostgreSQL and Redis). Prints a table, the receipts' counts, then every figure
 * as one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { embeddedPostgresUrl } from '@memstream/embedded-postgres';
import { bearer, TEST_JWT_SECRET, userToken } from '../harness/credentials.js';
import { startHealthy } from '../harness/embedded-process.js';
import { freePort } from '../harness/processes.js';
import { mainOf } from '../scripts/processes.js';
import { connect, createDatabase } from './lib/database.js';
import { seedExport, type SeedPlan } from './lib/erasure-seed.js';
import { positiveInt } from './lib/flags.js';
import { deleteTopicsWithPrefix } from './lib/kafka-load.js';
import { rawErase, type RawCounts } from './lib/raw-erasure.js';
import { startService, waitHealthy } from './lib/services.js';
import { round } from './lib/stats.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:erasure -- [options]
  --messages N     messages the erased person sends (default 10000; memories: N / 10), a multiple of 500
  --others N       messages of other people in conversations of their own (default 10000)
  --modes LIST     embedded,distributed (default both)
  --timeout-s S    how long to wait for a receipt, and for the seeded vectors (default 600)`;

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '10000' },
    others: { type: 'string', default: '10000' },
    modes: { type: 'string', default: 'embedded,distributed' },
    'timeout-s': { type: 'string', default: '600' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}
const modes = flags.modes.split(',').map((m) => m.trim());
for (const m of modes) if (m !== 'embedded' && m !== 'distributed') throw new Error(`--modes: no mode ${m}`);
const timeoutMs = positiveInt('timeout-s', flags['timeout-s']) * 1000;
const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const plan: SeedPlan = {
  people: [`erased-${runId}`, `raw-${runId}`],
  personMessages: positiveInt('messages', flags.messages),
  othersMessages: positiveInt('others', flags.others, 0),
  runId,
};
const [erased, baseline] = plan.people as [string, string];
const teardowns = new Teardowns();
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** The server under test: where writes and reads go, and its database. */
interface Server {
  readonly writes: string;
  readonly reads: string;
  readonly databaseUrl: string;
}

const SERVER_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  EMBEDDING_PROVIDER: 'hash',
  // the seeded search rows come without vectors: the indexer's sweep embeds them, in big rounds
  INDEXER_REEMBED_BATCH: '2000',
  INDEXER_SWEEP_INTERVAL_MS: '200',
  LOG_LEVEL: 'warn',
};

async function embedded(): Promise<Server> {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-bench-erasure-'));
  teardowns.push(['data dir', () => rm(dataDir, { recursive: true, force: true })]);
  const { proc } = await startHealthy({ dataDir, env: SERVER_ENV }, (p) =>
    teardowns.push(['embedded process', () => p.stop()]),
  );
  return { writes: proc.base, reads: proc.base, databaseUrl: embeddedPostgresUrl(join(dataDir, 'postgres')) };
}

async function distributed(): Promise<Server> {
  const { KAFKA_BROKERS, DATABASE_URL, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !DATABASE_URL || !REDIS_URL)
    throw new Error('KAFKA_BROKERS, DATABASE_URL and REDIS_URL must be set: run it as `npm run bench:erasure`');
  const prefix = `bench_${runId}.`;
  teardowns.push(['topics', () => deleteTopicsWithPrefix(KAFKA_BROKERS.split(','), prefix)]);
  const database = await createDatabase(DATABASE_URL, `bench_${runId}`);
  teardowns.push(['database', database.drop]);
  const env = {
    ...SERVER_ENV,
    KAFKA_BROKERS,
    DATABASE_URL: database.url,
    REDIS_URL,
    KAFKA_TOPIC_PREFIX: prefix,
    CONVERTER_GROUP_ID: `bench_${runId}_converter`,
    INDEXER_GROUP_ID: `bench_${runId}_indexer`,
    EXTRACTOR_GROUP_ID: `bench_${runId}_extractor`,
    GOVERNANCE_GROUP_ID: `bench_${runId}_governance`,
  };
  const start = async (name: string) => {
    const svc = startService({ name, entry: mainOf(name), env: { ...env, PORT: String(await freePort()) } });
    teardowns.push([name, () => svc.stop()]);
    await waitHealthy(svc);
    return svc;
  };
  // the converter first: it runs the migrations
  await start('converter');
  const [gateway, readApi] = await Promise.all([start('ingest-gateway'), start('read-api')]);
  await Promise.all([start('governance'), start('indexer'), start('extractor')]);
  return {
    writes: `http://127.0.0.1:${gateway.port}`,
    reads: `http://127.0.0.1:${readApi.port}`,
    databaseUrl: database.url,
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, pollMs = 50): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
}

const count = async (db: pg.Client, sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);

/** What is left of a person, and of everyone else: the run checks the first is nothing and the second unchanged. */
async function census(db: pg.Client, userId: string) {
  return {
    messages: await count(db, 'SELECT count(*) AS n FROM messages WHERE sender_id = $1', [userId]),
    memories: await count(db, 'SELECT count(*) AS n FROM episodic_memories WHERE user_id = $1', [userId]),
    searchRows: await count(db, 'SELECT count(*) AS n FROM search_items WHERE user_id = $1', [userId]),
    owned: await count(db, `SELECT count(*) AS n FROM conversation_memberships WHERE user_id = $1`, [userId]),
  };
}

const OTHERS_MESSAGES = `SELECT count(*) AS n FROM messages WHERE sender_id <> ALL($1::text[])`;

async function measure(mode: string) {
  progress(`${mode}: starting`);
  const server = mode === 'embedded' ? await embedded() : await distributed();
  const admin = bearer(await userToken('bench-admin', { claims: { roles: ['admin'] } }));
  const db = await connect(server.databaseUrl);
  db.on('error', () => undefined);
  teardowns.push([`${mode} database client`, () => db.end()]);

  progress(
    `${mode}: seeding two people with ${plan.personMessages} messages each, and ${plan.othersMessages} of others`,
  );
  const seedStarted = performance.now();
  const imported = await fetch(`${server.writes}/v1/admin/imports?justification=bench`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    body: ReadableStream.from(encoded(seedExport(plan))),
    duplex: 'half',
  } as RequestInit);
  const importBody = await imported.text();
  if (imported.status !== 200) throw new Error(`the seed import answered ${imported.status}: ${importBody}`);
  const importMs = performance.now() - seedStarted;
  await until(
    'every seeded search row embedded',
    async () => ((await count(db, `SELECT count(*) AS n FROM search_unembedded`)) === 0 ? true : undefined),
    500,
  );
  const seedMs = performance.now() - seedStarted;
  const before = { erased: await census(db, erased), baseline: await census(db, baseline) };
  const othersBefore = await count(db, OTHERS_MESSAGES, [plan.people]);
  const totals = {
    messages: await count(db, 'SELECT count(*) AS n FROM messages'),
    memories: await count(db, 'SELECT count(*) AS n FROM episodic_memories'),
    searchRows: await count(db, 'SELECT count(*) AS n FROM search_vectors'),
  };
  progress(
    `${mode}: seeded in ${round(seedMs / 1000, 1)} s (import ${round(importMs / 1000, 1)} s): ${JSON.stringify(totals)}`,
  );

  // The erasure, as an admin asks for it: from the POST to the first poll that reads `completed`.
  const t0 = performance.now();
  const accepted = await fetch(`${server.writes}/v1/admin/erasures`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ userId: erased, justification: 'bench:erasure' }),
  });
  const { id } = (await accepted.json()) as { id: string };
  if (accepted.status !== 202) throw new Error(`the erasure answered ${accepted.status}`);
  const receipt = await until('the receipt completed', async () => {
    const r = (await (await fetch(`${server.reads}/v1/admin/erasures/${id}`, { headers: admin })).json()) as Receipt;
    if (r.status === 'failed') throw new Error(`the erasure failed: ${JSON.stringify(r)}`);
    return r.status === 'completed' ? r : undefined;
  });
  const erasureMs = performance.now() - t0;
  progress(`${mode}: erased in ${round(erasureMs)} ms; now the raw baseline`);

  const raw = await rawErase(db, baseline);
  const after = { erased: await census(db, erased), baseline: await census(db, baseline) };
  const othersAfter = await count(db, OTHERS_MESSAGES, [plan.people]);
  for (const [who, left] of Object.entries(after))
    if (Object.values(left).some((n) => n > 0)) throw new Error(`${who} is not gone: ${JSON.stringify(left)}`);
  if (othersAfter !== othersBefore)
    throw new Error(`other people's messages went from ${othersBefore} to ${othersAfter}`);
  return {
    mode,
    seeded: { ...totals, person: before.erased, seed_s: round(seedMs / 1000, 1) },
    erasure_ms: round(erasureMs),
    receipt_ms: Date.parse(receipt.completedAt) - Date.parse(receipt.requestedAt),
    raw_ms: round(raw.elapsedMs),
    ratio: round(erasureMs / raw.elapsedMs, 1),
    passes: receipt.passes,
    receipt_counts: receipt.counts,
    raw_counts: raw.counts,
    others_messages_kept: othersAfter,
  };
}

interface Receipt {
  status: string;
  requestedAt: string;
  completedAt: string;
  passes: number;
  counts: Record<string, Record<string, Record<string, number>>>;
}

async function* encoded(lines: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for await (const line of lines) yield encoder.encode(line);
}

function printRaw(counts: RawCounts): void {
  console.log(
    `    ${Object.entries(counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
}

function printReceipt(counts: Receipt['counts']): void {
  for (const [family, stores] of Object.entries(counts)) {
    for (const [store, kinds] of Object.entries(stores)) {
      const nonZero = Object.entries(kinds).filter(([, n]) => n > 0);
      if (nonZero.length > 0) console.log(`    ${family}.${store}: ${nonZero.map(([k, n]) => `${k} ${n}`).join(', ')}`);
    }
  }
}

async function main(): Promise<void> {
  const results = [];
  for (const mode of modes) {
    results.push(await measure(mode));
    await teardowns.run();
  }
  console.log('mode          erasure ms   receipt ms   raw SQL ms   ratio   passes');
  for (const r of results)
    console.log(
      `${r.mode.padEnd(12)} ${String(r.erasure_ms).padStart(11)} ${String(r.receipt_ms).padStart(12)} ${String(r.raw_ms).padStart(12)} ${String(r.ratio).padStart(7)} ${String(r.passes).padStart(8)}`,
    );
  for (const r of results) {
    console.log(`${r.mode}: the person had ${JSON.stringify(r.seeded.person)}; the receipt counts`);
    printReceipt(r.receipt_counts);
    console.log(`${r.mode}: the raw statements removed or rewrote`);
    printRaw(r.raw_counts);
  }
  console.log(JSON.stringify({ benchmark: 'erasure', plan: { ...plan, people: undefined }, results }));
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => teardowns.run());
