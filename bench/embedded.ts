/**
 * `npm run bench:embedded`: the embedded mode as a user runs it (`npm start`, one process group,
 * a fresh DATA_DIR). Measures held and `sync_mode=false` writes at 16 in flight, the LoCoMo dev
 * import over HTTP, time to healthy on a fresh and an existing DATA_DIR, the memory of the server
 * and everything it started, and, as the ceiling, raw inserts into the same store in the same run.
 * Prints a table, then every figure as one JSON line. It needs no Kafka, PostgreSQL or Redis.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readGroupChatFile, runImport } from '@memstream/cli';
import { embeddedPostgresUrl } from '@memstream/embedded-postgres';
import { embeddedCommand, startHealthy, type EmbeddedProcess } from '../harness/embedded-process.js';
import { REPO_ROOT } from '../harness/processes.js';
import { renderEmbeddedReport, type EmbeddedReport, type WritePass } from './lib/embedded-report.js';
import { runHttpLoad, successes } from './lib/http-load.js';
import { descendantsOf, TreeMemoryPeak, treeMemory } from './lib/process-memory.js';
import { backgroundLoad, ProcMonitor, type CpuSnapshot } from './lib/proc-monitor.js';
import { embeddedStoreOf, nativeCeiling, pgliteCeiling, type RawOptions } from './lib/raw-insert.js';
import { ratePerSecond, round, summarizeLatencies } from './lib/stats.js';
import { Workload } from './lib/workload.js';
import { positiveInt } from './lib/flags.js';
import { monotonicUs, summarizeProfiles, type Window } from './lib/cpu-profile.js';
import { Teardowns } from './lib/teardowns.js';

const HELP = `usage: npm run bench:embedded -- [options]
  --messages N        POSTs per write pass, and rows per raw insert pass (default 5000)
  --concurrency C     requests in flight, and raw insert clients (default 16)
  --groups G          conversations the messages are spread over (default 16)
  --warmup W          held POSTs before measuring, not counted (default 500)
  --data PATH         the LoCoMo dev file (default ../shared/data/locomo-dev.json from the repository)
  --store-timeout-s S how long to wait for a pass's messages to be readable (default 300)
  --env KEY=VALUE     extra environment for the server (repeatable), e.g. EMBEDDING_PROVIDER=hash
  --profile           run the server with --cpu-prof and summarise where its time went in the held pass
  --wait-quiet-s S    on a shared machine: first wait up to S seconds for other load to drop
                      below 0.3 cores (default 0: start at once; the load is reported either way)`;

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '16' },
    groups: { type: 'string', default: '16' },
    warmup: { type: 'string', default: '500' },
    data: { type: 'string', default: resolve(REPO_ROOT, '../shared/data/locomo-dev.json') },
    'store-timeout-s': { type: 'string', default: '300' },
    env: { type: 'string', multiple: true, default: [] },
    'wait-quiet-s': { type: 'string', default: '0' },
    profile: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

const N = positiveInt('messages', flags.messages);
const C = positiveInt('concurrency', flags.concurrency);
const G = positiveInt('groups', flags.groups);
const warmup = positiveInt('warmup', flags.warmup, 0);
const storeTimeoutMs = positiveInt('store-timeout-s', flags['store-timeout-s']) * 1000;
const waitQuietMs = positiveInt('wait-quiet-s', flags['wait-quiet-s'], 0) * 1000;
const dataPath = resolve(flags.data);
const extraEnv = Object.fromEntries(
  flags.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const workload = new Workload(runId, G);
const groups = Array.from({ length: G }, (_, g) => workload.groupOf(g));
const monitor = new ProcMonitor(1_000);
monitor.watch('bench', process.pid);
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// The launcher imports the server into its own process, so the profile is the server's (and
// the launcher's build check, a few ms before it). Written when the process exits.
const profileDir = flags.profile ? `/tmp/memstream-bench-prof/${runId}` : undefined;

const teardowns = new Teardowns(() => monitor.stop());

async function startServer(dataDir: string): Promise<{ server: EmbeddedProcess; healthyMs: number }> {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const { proc: server, healthyMs } = await startHealthy({ dataDir, env: extraEnv, nodeArgs }, (proc) =>
    teardowns.push(['server', () => proc.stop()]),
  );
  return { server, healthyMs: Math.round(healthyMs) };
}

/** Cores the server and every process below it used between two snapshots (a process born in between counts from zero). */
function treeCores(rootPid: number, from: CpuSnapshot, to: CpuSnapshot): { server: number; machine: number } {
  const seconds = (to.at - from.at) / 1000;
  let used = 0;
  for (const pid of [rootPid, ...descendantsOf(rootPid)]) {
    const end = to.perPid.get(pid)?.[1];
    if (end !== undefined) used += end - (from.perPid.get(pid)?.[1] ?? 0);
  }
  return { server: round(used / seconds, 2), machine: round((to.machineBusy - from.machineBusy) / seconds, 2) };
}

/** Messages readable in the benchmark's groups, from each group's total_count. */
async function storedIn(base: string, groupIds: readonly string[]): Promise<number> {
  let total = 0;
  for (const group of groupIds) {
    const res = await fetch(`${base}/api/v1/memories?group_id=${encodeURIComponent(group)}&limit=1`, {
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { result?: { total_count?: number } };
    if (!res.ok) throw new Error(`GET /api/v1/memories answered ${res.status}: ${JSON.stringify(body)}`);
    total += body.result?.total_count ?? 0;
  }
  return total;
}

/** Polls until `target` messages are readable; resolves with when that was first seen (undefined on timeout). */
async function untilStored(
  base: string,
  groupIds: readonly string[],
  target: number,
): Promise<{ reachedAt: number | undefined; count: number }> {
  const deadline = performance.now() + storeTimeoutMs;
  let count = 0;
  while (performance.now() < deadline) {
    const sentAt = performance.now();
    count = await storedIn(base, groupIds);
    if (count >= target) return { reachedAt: sentAt, count };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { reachedAt: undefined, count };
}

async function writePass(server: EmbeddedProcess, pass: string, total: number, query: string): Promise<WritePass> {
  const before = await storedIn(server.base, groups);
  const cpu0 = monitor.cpu();
  const load = await runHttpLoad({
    origin: server.base,
    path: `/api/v1/memories${query}`,
    total,
    concurrency: C,
    bodyAt: (i) => JSON.stringify(workload.message(pass, i)),
    timeoutMs: 30_000,
  });
  const acknowledged = successes(load.statuses);
  const reached = await untilStored(server.base, groups, before + acknowledged);
  const cpu1 = monitor.cpu();
  const storedEnd = reached.reachedAt ?? performance.now();
  return {
    sent: total,
    statuses: load.statuses,
    acknowledged_per_s: ratePerSecond(acknowledged, load.endedAt - load.startedAt),
    latency_ms: summarizeLatencies(load.latenciesMs),
    stored: reached.count - before,
    stored_complete: reached.reachedAt !== undefined,
    stored_per_s: ratePerSecond(reached.count - before, storedEnd - load.startedAt),
    cores: treeCores(server.pid, cpu0, cpu1),
    ...(load.firstError ? { first_error: load.firstError } : {}),
  };
}

/** The LoCoMo dev file imported the way a user would: `memstream import --format locomo --api-url ...`. */
async function locomoImport(server: EmbeddedProcess): Promise<EmbeddedReport['locomo']> {
  const read = await readGroupChatFile(dataPath, 'locomo');
  if (!read.ok) throw new Error(`${dataPath}: ${read.errors.slice(0, 3).join('; ')}`);
  const locomoGroups = read.conversations.map((c) => c.meta.group_id);
  const messages = read.conversations.reduce((n, c) => n + c.messages.length, 0);
  const stderr: string[] = [];
  const cpu0 = monitor.cpu();
  const started = performance.now();
  const exitCode = await runImport(
    {
      input: dataPath,
      format: 'locomo',
      validateOnly: false,
      apiUrl: server.base,
      topicPrefix: '',
      partitions: 8,
      concurrency: 4,
    },
    { stdout: { write: () => true }, stderr: { write: (text: string) => stderr.push(text) } },
  );
  if (exitCode !== 0)
    progress(
      `import exited ${exitCode}: ${stderr
        .filter((l) => l.startsWith('failed'))
        .slice(0, 3)
        .join(' ')}`,
    );
  const reached = await untilStored(server.base, locomoGroups, messages);
  const cpu1 = monitor.cpu();
  return {
    conversations: read.conversations.length,
    messages,
    import_exit_code: exitCode,
    stored: reached.count,
    stored_complete: reached.reachedAt !== undefined,
    elapsed_s: round(((reached.reachedAt ?? performance.now()) - started) / 1000, 2),
    cores: treeCores(server.pid, cpu0, cpu1),
  };
}

async function main(): Promise<EmbeddedReport> {
  const startedAt = new Date().toISOString();
  const background = await backgroundLoad(monitor, waitQuietMs, progress);
  const dataDir = await mkdtemp(join(os.tmpdir(), 'memstream-bench-embedded-'));
  teardowns.push(['data dir', () => rm(dataDir, { recursive: true, force: true })]);
  progress(`run ${runId}: DATA_DIR ${dataDir}`);

  const fresh = await startServer(dataDir);
  const server = fresh.server;
  progress(`healthy after ${fresh.healthyMs} ms (fresh DATA_DIR)`);
  const idle = treeMemory(server.pid);
  const peak = new TreeMemoryPeak(server.pid);
  if (warmup > 0) {
    progress(`warm-up: ${warmup} held POSTs`);
    await writePass(server, 'w', warmup, '');
  }
  progress(`held writes: ${N} POSTs, ${C} in flight`);
  const heldFrom = monotonicUs();
  const held = await writePass(server, 's', N, '');
  const heldSpan: Window = { fromUs: heldFrom, toUs: monotonicUs() };
  progress(`sync_mode=false writes: ${N} POSTs, ${C} in flight`);
  const accepted = await writePass(server, 'a', N, '?sync_mode=false');
  progress(`LoCoMo import of ${dataPath}`);
  const locomo = await locomoImport(server);
  const peakMemory = peak.stop();

  const rawOptions: RawOptions = { rows: N, concurrency: C, batch: 1000, rowAt: (i) => workload.copyRow(i) };
  const kind = embeddedStoreOf(dataDir);
  let raw: EmbeddedReport['raw'] = { skipped: `no store found under ${dataDir} (neither postgres/socket nor pglite)` };
  // The native store lives only as long as the server that started it, PGlite only once it let go.
  if (kind === 'native') {
    progress(`raw insert ceiling on the native store (${N} rows)`);
    raw = await nativeCeiling(embeddedPostgresUrl(join(dataDir, 'postgres')), rawOptions);
  }
  await server.stop();
  // Node writes one profile per thread, named CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile:
  // thread 0 is the event loop, the others the embedding model's worker. Only the first server's
  // run inside the window (the restart below writes profiles of its own, outside it).
  const profiles = profileDir ? summarizeProfiles(profileDir, 20, heldSpan).filter((p) => p.busyMs > 0) : [];
  const isMain = (file: string) => /\.\d+\.0\.\d+\.cpuprofile$/.test(file);
  const profile = profileDir
    ? {
        'server main thread, held pass': profiles.find((p) => isMain(p.file)),
        'server other threads (embedding), held pass': profiles.find((p) => !isMain(p.file)),
      }
    : undefined;

  const existing = await startServer(dataDir);
  progress(`healthy after ${existing.healthyMs} ms (existing DATA_DIR)`);
  await existing.server.stop();

  if (kind === 'pglite') {
    progress(`raw insert ceiling on a copy of the PGlite folder (${N} rows)`);
    raw = await pgliteCeiling(dataDir, rawOptions);
  }
  const cpuModel = os.cpus()[0]?.model.trim() ?? 'unknown';
  return {
    run: {
      id: runId,
      started_at: startedAt,
      command: embeddedCommand().asWritten,
      cpus: os.availableParallelism(),
      cpu_model: cpuModel,
      mem_total_mib: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
    },
    settings: { messages: N, concurrency: C, groups: G, warmup, data: dataPath, store: kind, ...extraEnv },
    background_cores: round((background['machine'] ?? 0) - (background['bench'] ?? 0), 2),
    healthy_ms: { fresh: fresh.healthyMs, existing: existing.healthyMs },
    memory: { idle, peak: peakMemory },
    held,
    accepted,
    locomo,
    raw,
    ...(profile ? { profile } : {}),
  };
}

try {
  const report = await main();
  await teardowns.run();
  console.log(renderEmbeddedReport(report));
  console.log(JSON.stringify({ bench: 'embedded', ...report }));
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await teardowns.run();
  process.exitCode = 1;
}
