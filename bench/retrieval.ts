/**
 * Retrieval benchmark on LoCoMo: `npm run bench:retrieval -- --data ../shared/data/locomo-dev.json`.
 *
 * Ingests every conversation through the public EverMemOS API (one message per turn, message id
 * `<sample_id>:<dia_id>`, group id the sample id, each turn at its session's date-time), waits
 * until every message is indexed, then asks every question of categories 1-4 within its
 * conversation and reports evidence recall@5/@10/@25 (the share of a question's evidence turns
 * among the top k `message` hits) per category and overall, for each retrieve method, with
 * search latency and indexing throughput.
 *
 * By default it runs the embedded mode in this process (`npm start`'s composition, on a fresh
 * data folder); `--base URL` measures a running memstream instead (read and write on one address).
 * Extra flags: `--methods keyword,vector,hybrid,rrf`, `--env KEY=VALUE` (repeatable, embedded only),
 * `--samples N` (first N conversations).
 */
import { readFile, mkdtemp } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@memstream/config';
import { allInOneEnv } from '@memstream/all-in-one';
import { createLogger } from '@memstream/logging';
import { Lifecycle } from '@memstream/runtime';
import { startEmbedded } from '@memstream/all-in-one';
import { Metrics } from '@memstream/metrics';
import { locomoToGroupChat, type GroupChatDocument } from '@memstream/cli';
import { summarizeLatencies, ratePerSecond, round } from './lib/stats.js';
import { section, table } from './lib/table.js';

const KS = [5, 10, 25] as const;
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    base: { type: 'string' },
    methods: { type: 'string', default: 'keyword,vector,hybrid,rrf' },
    env: { type: 'string', multiple: true, default: [] },
    samples: { type: 'string' },
  },
});
if (!values.data) {
  console.error('usage: npm run bench:retrieval -- --data PATH [--base URL] [--methods keyword,vector,hybrid,rrf]');
  process.exit(2);
}

interface Question {
  readonly sampleId: string;
  readonly question: string;
  readonly category: number;
  readonly evidence: string[];
}

const raw = JSON.parse(await readFile(values.data, 'utf8')) as Array<{ sample_id: string; qa: Array<{ question: string; category: number; evidence?: string[] }> }>;
const samples = values.samples ? raw.slice(0, Number(values.samples)) : raw;
const { documents, errors } = locomoToGroupChat(samples);
if (errors.length > 0) console.error(`conversion problems (skipped):\n  ${errors.slice(0, 10).join('\n  ')}`);
const questions: Question[] = samples.flatMap((s) =>
  s.qa
    .filter((q) => q.category >= 1 && q.category <= 4)
    .map((q) => ({
      sampleId: s.sample_id,
      question: q.question,
      category: q.category,
      // Some evidence entries hold several turns ("D8:6; D9:17"); each is a turn id.
      evidence: [...new Set((q.evidence ?? []).flatMap((e) => e.split(/[;,\s]+/)).filter((e) => /^D\d+:\d+$/.test(e)).map((e) => `${s.sample_id}:${e}`))],
    }))
    .filter((q) => q.evidence.length > 0),
);

const base = values.base ?? (await startInProcess(values.env ?? []));
const methods = values.methods!.split(',').map((m) => m.trim()).filter(Boolean);

// ---- ingest ----
const turns = documents.reduce((n, d) => n + d.conversation_list.length, 0);
console.log(`${documents.length} conversations, ${turns} turns, ${questions.length} questions (categories 1-4) -> ${base}`);
const started = performance.now();
await Promise.all(documents.map((doc) => ingest(doc)));
const sentMs = performance.now() - started;
await Promise.all(documents.map((doc) => indexed(sampleIdOf(doc), doc.conversation_list.length)));
const indexedMs = performance.now() - started;

// ---- evaluate ----
type Recall = Record<number, number[]>; // k -> per-question recall
const results = new Map<string, { byCategory: Map<number, Recall>; latencies: number[] }>();
for (const method of methods) {
  const byCategory = new Map<number, Recall>();
  const latencies: number[] = [];
  for (const q of questions) {
    const t0 = performance.now();
    const hits = await search(q, method);
    latencies.push(performance.now() - t0);
    const recall = byCategory.get(q.category) ?? Object.fromEntries(KS.map((k) => [k, [] as number[]]));
    for (const k of KS) {
      const found = new Set(hits.slice(0, k).flatMap((h) => h.message_ids));
      recall[k]!.push(q.evidence.filter((e) => found.has(e)).length / q.evidence.length);
    }
    byCategory.set(q.category, recall);
  }
  results.set(method, { byCategory, latencies });
}

// ---- report ----
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
console.log(section('evidence recall (message hits, within the question\'s conversation)'));
const rows: Array<Array<string | number>> = [];
for (const method of methods) {
  const r = results.get(method)!;
  for (const cat of [1, 2, 3, 4]) {
    const rec = r.byCategory.get(cat);
    if (!rec) continue;
    rows.push([`${method} / ${cat} ${CATEGORIES[cat]}`, rec[5]!.length, ...KS.map((k) => round(mean(rec[k]!), 3))]);
  }
  const all = (k: number) => [...r.byCategory.values()].flatMap((rec) => rec[k]!);
  rows.push([`${method} / overall 1-4`, all(5).length, ...KS.map((k) => round(mean(all(k)), 3))]);
}
console.log(table(['method / category', 'questions', 'recall@5', 'recall@10', 'recall@25'], rows));

console.log(section('search latency (HTTP round trip, sequential, ms)'));
console.log(
  table(
    ['method', 'searches', 'p50', 'p95', 'p99', 'max'],
    methods.map((m) => {
      const s = summarizeLatencies(Float64Array.from(results.get(m)!.latencies));
      return [m, s.count, s.p50, s.p95, s.p99, s.max];
    }),
  ),
);
console.log(section('indexing'));
console.log(
  table(
    ['turns', 'sent in (s)', 'all indexed after (s)', 'indexed turns/s'],
    [[turns, round(sentMs / 1000, 1), round(indexedMs / 1000, 1), ratePerSecond(turns, indexedMs)]],
  ),
);
const goal = results.get('hybrid');
if (goal) {
  const all10 = mean([...goal.byCategory.values()].flatMap((rec) => rec[10]!));
  const p95 = summarizeLatencies(Float64Array.from(goal.latencies)).p95;
  console.log(`\ngoal (embedded default): hybrid recall@10 >= 0.75 -> ${round(all10, 3)} ${all10 >= 0.75 ? 'MET' : 'NOT MET'}; search p95 < 50 ms -> ${p95} ${p95 < 50 ? 'MET' : 'NOT MET'}`);
  console.log("reference: LoCoMo paper's retriever over dialog turns, recall@10 = 0.662");
}
process.exit(0);

// ---- helpers ----
function sampleIdOf(doc: GroupChatDocument): string {
  return doc.conversation_meta.group_id.replace(/^locomo-/, '');
}

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if ((res.status === 503 || res.status === 429) && attempt < 20) {
      await new Promise((r) => setTimeout(r, 200 * attempt));
      continue;
    }
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  }
}

/** One conversation: its metadata, then its turns in order (a held POST each: stored when it returns). */
async function ingest(doc: GroupChatDocument): Promise<void> {
  const sampleId = sampleIdOf(doc);
  const meta = await api('POST', '/api/v1/memories/conversation-meta', { ...doc.conversation_meta, group_id: sampleId });
  if (meta.status >= 300) throw new Error(`conversation-meta ${sampleId}: ${meta.status} ${JSON.stringify(meta.body)}`);
  for (const m of doc.conversation_list) {
    const res = await api('POST', '/api/v1/memories', { ...m, group_id: sampleId, group_name: doc.conversation_meta.name, message_id: `${sampleId}:${m.message_id}` });
    if (res.status !== 200 && res.status !== 202) throw new Error(`message ${m.message_id}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/** Resolves once every turn of the group is stored and indexed with the current model. */
async function indexed(sampleId: string, expected: number): Promise<void> {
  for (;;) {
    const res = await api<{ result?: { messages: number; indexed_messages: number; current_vectors: number } }>('GET', `/api/v1/stats/memory?group_id=${encodeURIComponent(sampleId)}`);
    const r = res.body.result;
    if (r && r.messages >= expected && r.indexed_messages >= expected && r.current_vectors >= r.indexed_messages) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function search(q: Question, method: string): Promise<Array<{ message_ids: string[] }>> {
  const res = await api<{ result: { memories: Array<{ message_ids: string[] }> } }>('POST', '/api/v1/memories/search', {
    query: q.question,
    group_id: q.sampleId,
    retrieve_method: method,
    memory_types: ['message'],
    top_k: Math.max(...KS),
  });
  if (res.status !== 200) throw new Error(`search ${method}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.memories;
}

/** The embedded mode in this process, on a fresh data folder and a free port. */
async function startInProcess(envFlags: readonly string[]): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-bench-retrieval-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const extra = Object.fromEntries(envFlags.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const log = createLogger({ service: 'bench-retrieval', level: 'warn' });
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
  // Silence-based episodes only: LoCoMo's sessions are days apart, and idle closing would race the run.
  const config = loadConfig(allInOneEnv, { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, EPISODE_IDLE_CLOSE_MS: '0', ...extra });
  const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics({ processMetrics: false }) });
  lifecycle.markReady();
  return `http://127.0.0.1:${port}`;
}
