/**
 * `npm run bench:summarizer`: what the rolling summary costs in model input as a conversation
 * grows. Plays a conversation of R rounds into a store, triggers the summary worker at the end of
 * every round (as a live agent would) against the test model server, which counts each call's
 * input tokens, and sets that next to what summarizing the full history each time would cost.
 * Issue 5 requires the incremental input to stay flat, bounded by the window plus one summary.
 * Prints a report, then every figure as one JSON line.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createChatModel } from '@memstream/llm';
import { Metrics } from '@memstream/metrics';
import { createLogger } from '@memstream/logging';
import {
  PgStore,
  openPglite,
  appendMessages,
  listSummaries,
  migrate,
  type NewMessage,
  type Store,
  type SummaryMemory,
} from '@memstream/store';
import type { CanonicalMessage } from '@memstream/schemas';
import { SummaryWorker, modelSummarizer } from '@memstream/summarizer';
import { countTokens, startModelServer } from '../harness/model-server.js';
import { messageText, seededRandom } from './lib/chat-text.js';
import { createDatabase } from './lib/database.js';
import { round, summarizeLatencies } from './lib/stats.js';
import { FullHistoryCost, PromptCounter } from './lib/summary-tokens.js';
import { renderReport, tokenStats, type Decile, type SummarizerReport } from './lib/summarizer-report.js';

const HELP = `usage: npm run bench:summarizer -- [options]
  --rounds R        rounds of the conversation, a user and an assistant message each (default 1000)
  --window W        MEMORY_ROLLING_WINDOW_SIZE: messages in the summary's window (default 14)
  --after S         MEMORY_SUMMARIZE_AFTER_SEQ: first sequence number that triggers a summary (default 5)
  --seed N          seed of the generated message text (default 1)
  --postgres        a fresh database on $DATABASE_URL (dropped at the end) instead of in-memory PGlite
  --round-timeout-s how long one round may wait for its summary (default 30)
  --log-level L     the worker's log level, to stderr (default warn)`;

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1000' },
    window: { type: 'string', default: '14' },
    after: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    postgres: { type: 'boolean', default: false },
    'round-timeout-s': { type: 'string', default: '30' },
    'log-level': { type: 'string', default: 'warn' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

function usageError(message: string): never {
  console.error(`${message}\n\n${HELP}`);
  process.exit(2);
}

function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) usageError(`--${name} must be an integer >= ${min}, got ${value}`);
  return n;
}

const ROUNDS = integer('rounds', flags.rounds, 10);
const WINDOW = integer('window', flags.window, 2);
const AFTER = integer('after', flags.after, 1);
const SEED = integer('seed', flags.seed, 0);
const ROUND_TIMEOUT_MS = integer('round-timeout-s', flags['round-timeout-s'], 1) * 1000;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const level = LEVELS.find((l) => l === flags['log-level']);
if (!level) usageError(`--log-level must be one of ${LEVELS.join(', ')}`);
/** Flat means the last decile's mean within this many percent of the second's (the first holds the warm-up). */
const FLAT_TOLERANCE_PCT = 25;

const runId = randomUUID().replaceAll('-', '').slice(0, 10);
const conversationId = `bench_conv_${runId}`;
const log = createLogger({ service: 'bench-summarizer', level, destination: process.stderr });
const progress = (msg: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

const teardowns: Array<[string, () => Promise<unknown>]> = [];
async function tearDown(): Promise<void> {
  for (const [name, down] of teardowns.splice(0).reverse()) {
    await down().catch((err: unknown) => progress(`teardown of ${name} failed: ${String(err)}`));
  }
}

async function openStore(): Promise<Store> {
  if (!flags.postgres) return openPglite();
  const adminUrl = process.env['DATABASE_URL'];
  if (!adminUrl) throw new Error('--postgres needs DATABASE_URL: run it as `npm run bench:summarizer -- --postgres`');
  const database = await createDatabase(adminUrl, `bench_${runId}`);
  teardowns.push(['database', database.drop]);
  progress(`database bench_${runId}`);
  return new PgStore({ connectionString: database.url, maxConnections: 4, statementTimeoutMs: 10_000, log });
}

/** Round k (1-based): the user's message is seq 2(k-1), the assistant's 2(k-1)+1, a minute apart. */
function roundMessages(rnd: () => number, k: number): NewMessage[] {
  const at = Date.UTC(2025, 0, 6, 9) + (k - 1) * 5 * 60_000;
  const base = { conversation_id: conversationId, refer_list: [], metadata: {}, source_api: 'evermemos' as const };
  return [
    {
      ...base,
      message_id: `u${k}`,
      sender_id: 'maria',
      sender_name: 'Maria',
      role: 'user',
      content: messageText(rnd, 'user'),
      created_at: new Date(at),
    },
    {
      ...base,
      message_id: `a${k}`,
      sender_id: 'agent',
      sender_name: 'Assistant',
      role: 'assistant',
      content: messageText(rnd, 'assistant'),
      created_at: new Date(at + 60_000),
    },
  ];
}

/**
 * Polls until no summary of the conversation is 'processing'; returns every row. The delay grows
 * from 1 to 16 ms: PGlite runs one statement at a time, so polling flat out for a list that grows
 * to a thousand rows would queue ahead of the worker's own statements and slow what is measured.
 */
async function waitIdle(store: Store): Promise<SummaryMemory[]> {
  const deadline = performance.now() + ROUND_TIMEOUT_MS;
  for (let delay = 1; ; delay = Math.min(16, delay * 2)) {
    const rows = await listSummaries(store, conversationId);
    if (!rows.some((r) => r.status === 'processing')) return rows;
    if (performance.now() > deadline) throw new Error(`a summary was still processing after ${ROUND_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** The last message number a model call saw, read from its prompt the way the test server reads it. */
function lastSeqOfCall(call: { messages: Array<{ content: string }> }): number {
  const seqs = [
    ...call.messages
      .map((m) => m.content)
      .join('\n')
      .matchAll(/^#(\d+) /gm),
  ].map((m) => Number(m[1]));
  return Math.max(...seqs);
}

async function main(): Promise<SummarizerReport> {
  const startedAt = new Date().toISOString();
  const store = await openStore();
  teardowns.push(['store', () => store.close()]);
  await migrate(store, log);
  const server = await startModelServer();
  teardowns.push(['model server', () => server.close()]);
  const metrics = new Metrics();
  const model = createChatModel({
    baseUrl: server.baseUrl,
    apiKey: undefined,
    model: 'bench-model',
    timeoutMs: 10_000,
    maxRetries: 2,
    metrics,
  });
  const worker = new SummaryWorker(
    store,
    modelSummarizer(model),
    {
      windowSize: WINDOW,
      summarizeAfterSeq: AFTER,
      processingTimeoutMs: 60_000,
      concurrency: 1,
      retryInitialMs: 50,
      retryMaxMs: 1_000,
      minIntervalMs: 0,
    },
    log,
    metrics,
  );
  teardowns.push(['worker', () => worker.stop()]);

  progress(
    `run ${runId}: ${ROUNDS} rounds on ${flags.postgres ? 'PostgreSQL' : 'PGlite (in memory)'}, model server ${server.baseUrl}`,
  );
  const rnd = seededRandom(SEED);
  const stored: CanonicalMessage[] = [];
  const roundMs: number[] = [];
  let rows: SummaryMemory[] = [];
  const loopStarted = performance.now();
  for (let k = 1; k <= ROUNDS; k++) {
    const started = performance.now();
    const appended = await appendMessages(
      store,
      roundMessages(rnd, k).map((message) => ({ message })),
    );
    const lastSeq = appended.at(-1)!.message.seq;
    if (lastSeq !== 2 * k - 1) throw new Error(`round ${k} ended at seq ${lastSeq}, expected ${2 * k - 1}`);
    await worker.trigger(conversationId, lastSeq);
    rows = await waitIdle(store);
    roundMs.push(performance.now() - started);
    stored.push(...appended.map((a) => a.message));
    if (k % Math.ceil(ROUNDS / 10) === 0) progress(`round ${k}: ${server.calls.length} summarizations`);
  }
  const wallMs = performance.now() - loopStarted;
  await worker.stop();

  progress('counting what the full history would have cost');
  const counter = new PromptCounter();
  const full = new FullHistoryCost(counter);
  for (const m of stored) await full.add(m);

  // Calls and completed rows pair up in order (one summary at a time); each call's prompt names its end.
  const completed = rows.filter((r) => r.status === 'completed');
  const byId = new Map(rows.map((r) => [r.memory_id, r]));
  const calls = server.calls.map((c) => ({ end: lastSeqOfCall(c), tokens: c.inputTokens }));
  const matched = calls.length === completed.length && calls.every((c, i) => c.end === completed[i]!.end_sequence);
  const fullTokens: number[] = [];
  for (const c of calls) fullTokens.push(await full.tokens(c.end));

  const deciles: Decile[] = [];
  const decileOf = (end: number) => Math.min(9, Math.floor((((end + 1) / 2 - 1) * 10) / ROUNDS));
  let exactChecks = 0;
  let exactMismatches = 0;
  for (let d = 0; d < 10; d++) {
    const inDecile = calls.map((c, i) => ({ ...c, full: fullTokens[i]! })).filter((c) => decileOf(c.end) === d);
    const mean = (xs: number[]) => (xs.length > 0 ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 1) : null);
    deciles.push({
      rounds: `${Math.ceil((d * ROUNDS) / 10) + 1}–${Math.ceil(((d + 1) * ROUNDS) / 10)}`,
      summarizations: inDecile.length,
      incremental_mean: mean(inDecile.map((c) => c.tokens)),
      full_history_mean: mean(inDecile.map((c) => c.full)),
      round_ms_mean: mean(roundMs.filter((_, i) => decileOf(2 * i + 1) === d)),
      generation_ms_mean: mean(
        completed.filter((r) => decileOf(r.end_sequence) === d).map((r) => r.generation_time_ms ?? 0),
      ),
    });
    const lastInDecile = inDecile.at(-1);
    if (lastInDecile) {
      exactChecks++;
      if ((await full.exact(lastInDecile.end)) !== lastInDecile.full) exactMismatches++;
    }
  }

  // The bound of issue 5: the window plus one summary, plus the prompt's fixed text.
  let overhead = 0;
  for (const row of completed) {
    const base = row.base_memory_id === null ? undefined : byId.get(row.base_memory_id);
    const previous = base ? { text: '', start: base.start_sequence, end: base.end_sequence } : null;
    overhead = Math.max(
      overhead,
      await counter.tokens({ start: row.start_sequence, end: row.end_sequence, previous, messages: [] }),
    );
  }
  const longestSummary = Math.max(0, ...completed.map((r) => countTokens(r.memory_text)));
  const windowTokens = full.maxWindowTokens(WINDOW);
  const bound = overhead + longestSummary + windowTokens;
  const incremental = tokenStats(calls.map((c) => c.tokens));

  const second = deciles[1]!.incremental_mean;
  const last = deciles[9]!.incremental_mean;
  const changePct = second !== null && last !== null ? round(((last - second) / second) * 100, 1) : null;
  const generation = summarizeLatencies(Float64Array.from(completed.map((r) => r.generation_time_ms ?? 0)));
  const rounds = summarizeLatencies(Float64Array.from(roundMs));
  return {
    run: {
      id: runId,
      started_at: startedAt,
      store: flags.postgres ? 'postgres' : 'pglite',
      cpus: os.availableParallelism(),
      node: process.version,
    },
    settings: { rounds: ROUNDS, window: WINDOW, summarize_after_seq: AFTER, seed: SEED, messages: stored.length },
    summarizations: {
      calls: calls.length,
      completed: completed.length,
      failed: rows.filter((r) => r.status === 'failed').length,
      calls_matched_to_rows: matched,
    },
    incremental_tokens: incremental,
    full_history_tokens: {
      ...tokenStats(fullTokens),
      method: "the model summarizer's own prompt for messages 0..end with no previous memory, counted with countTokens",
      exact_checks: exactChecks,
      exact_mismatches: exactMismatches,
    },
    total_ratio: incremental.total > 0 ? round(tokenStats(fullTokens).total / incremental.total, 1) : 0,
    deciles,
    bound: {
      window_tokens: windowTokens,
      longest_summary_tokens: longestSummary,
      prompt_overhead_tokens: overhead,
      tokens: bound,
      max_call_tokens: incremental.max,
      calls_over: calls.filter((c) => c.tokens > bound).length,
      pass: calls.length > 0 && calls.every((c) => c.tokens <= bound),
    },
    flat: {
      second_decile_mean: second,
      last_decile_mean: last,
      change_pct: changePct,
      tolerance_pct: FLAT_TOLERANCE_PCT,
      pass: changePct !== null && Math.abs(changePct) <= FLAT_TOLERANCE_PCT,
    },
    timing: {
      wall_s: round(wallMs / 1000, 2),
      summaries_per_s: round((calls.length * 1000) / wallMs, 1),
      round_ms: { p50: rounds.p50, p95: rounds.p95, max: rounds.max },
      generation_ms: { p50: generation.p50, p95: generation.p95, max: generation.max },
    },
  };
}

try {
  const report = await main();
  await tearDown();
  console.log(renderReport(report));
  console.log(JSON.stringify({ bench: 'summarizer', ...report }));
} catch (err) {
  console.error(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await tearDown();
  process.exitCode = 1;
}
