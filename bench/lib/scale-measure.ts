/**
 * What bench:scale reads at each step besides rates: where the CPU went (process CPU time from
 * /proc/<pid>/stat over a window; PostgreSQL as the sum over the backends of the run's database,
 * whoever else uses the shared server), search latency in three scopes, sizes, and whether a
 * pass's rows are all stored and indexed.
 */
import type pg from 'pg';
import { Pool } from 'undici';
import { backendOwners } from './backend-owners.js';
import type { CpuSnapshot, ProcMonitor } from './proc-monitor.js';
import { summarizeLatencies, round } from './stats.js';

export interface CpuWindow {
  readonly from: CpuSnapshot;
  readonly watched: ReadonlyMap<string, number>;
  readonly backends: ReadonlyMap<number, string>;
}

/** `watched`: label -> pid of the processes whose CPU (and whose backends' CPU) is reported. */
export async function openWindow(
  monitor: ProcMonitor,
  client: pg.Client,
  database: string,
  watched: ReadonlyMap<string, number>,
): Promise<CpuWindow> {
  return { from: monitor.cpu(), watched, backends: await backendOwners(client, database, watched) };
}

export interface CpuPerMessage {
  /** µs per message of each watched process, and of PostgreSQL (every backend of the run's database). */
  readonly [label: string]: number | Record<string, number>;
  /** PostgreSQL's µs per message split by the client each backend serves. */
  readonly postgres_by_client: Record<string, number>;
}

/**
 * CPU µs per message of each watched label and of PostgreSQL between the window's start and now.
 * A backend that ended inside the window is missed (pools keep theirs open); one that started
 * inside it counts from zero.
 */
export async function closeWindow(
  window: CpuWindow,
  monitor: ProcMonitor,
  client: pg.Client,
  database: string,
  labels: readonly string[],
  messages: number,
): Promise<CpuPerMessage> {
  const backends = new Map([...window.backends, ...(await backendOwners(client, database, window.watched))]);
  const to = monitor.cpu();
  const used = (pid: number) => {
    const end = to.perPid.get(pid)?.[1];
    if (end === undefined) return 0;
    return end - (window.from.perPid.get(pid)?.[1] ?? 0);
  };
  const perMessage = (s: number) => (messages > 0 ? round((s * 1e6) / messages, 1) : 0);
  const byClient: Record<string, number> = {};
  for (const [pid, owner] of backends) byClient[owner] = (byClient[owner] ?? 0) + used(pid);
  const total = Object.values(byClient).reduce((a, b) => a + b, 0);
  return {
    ...Object.fromEntries(labels.map((l) => [l, perMessage(window.watched.has(l) ? used(window.watched.get(l)!) : 0)])),
    postgres: perMessage(total),
    postgres_by_client: Object.fromEntries(Object.entries(byClient).map(([o, sec]) => [o, perMessage(sec)])),
  };
}

/** Messages stored so far in the given conversations (their counters move in the storing transaction). */
export async function storedIn(client: pg.Client, conversations: readonly string[]): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'SELECT COALESCE(sum(next_seq), 0) AS n FROM conversations WHERE id = ANY($1)',
    [conversations],
  );
  return Number(rows[0]!.n);
}

/** Vector rows of the given conversations' messages. */
export async function vectorsIn(client: pg.Client, conversations: readonly string[]): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM search_vectors WHERE kind = 'message' AND conversation_id = ANY($1)`,
    [conversations],
  );
  return Number(rows[0]!.n);
}

/** How many of the given messages (conversation, message id) have a vector. */
export async function messagesWithVectors(
  client: pg.Client,
  messages: readonly { readonly conversation: string; readonly messageId: string }[],
): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT count(*) AS n
     FROM unnest($1::text[], $2::text[]) AS w(c, mid)
     JOIN messages m ON m.conversation_id = w.c AND m.message_id = w.mid
     JOIN search_vectors v ON v.group_key = m.group_key AND v.kind = 'message' AND v.item_id = m.id::text`,
    [messages.map((m) => m.conversation), messages.map((m) => m.messageId)],
  );
  return Number(rows[0]!.n);
}

/** Polls `read` until it returns at least `target` or `failure` names a reason; returns when it got there. */
export async function waitFor(
  read: () => Promise<number>,
  target: number,
  timeoutMs: number,
  failure: () => string | undefined,
): Promise<{ at: number; value: number; complete: boolean }> {
  const deadline = performance.now() + timeoutMs;
  let value = 0;
  while (performance.now() < deadline) {
    const failed = failure();
    if (failed) throw new Error(`gave up waiting for ${target} at ${value}: ${failed}`);
    const at = performance.now();
    value = await read();
    if (value >= target) return { at, value, complete: true };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { at: performance.now(), value, complete: false };
}

export interface SearchScope {
  readonly name: string;
  readonly body: (i: number) => Record<string, unknown>;
}

/**
 * `queries` hybrid searches per scope, one at a time on the read API (POST, memstream's flat
 * dialect, which may search everything), milliseconds from request to the whole answer.
 */
export async function searchLatencies(
  origin: string,
  scopes: readonly SearchScope[],
  queries: number,
): Promise<Record<string, { p50: number; p95: number; hits: number; unavailable?: number }>> {
  const pool = new Pool(origin, { connections: 1, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const out: Record<string, { p50: number; p95: number; hits: number; unavailable?: number }> = {};
  try {
    for (const scope of scopes) {
      const ms: number[] = [];
      let hits = 0;
      // a 503 (the store cut the search at its statement timeout) is counted, and its time kept:
      // the step's line says how many searches the store could not answer in time
      let unavailable = 0;
      for (let i = 0; i < queries; i++) {
        const started = performance.now();
        const res = await pool.request({
          path: '/api/v1/memories/search',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ retrieve_method: 'hybrid', top_k: 10, ...scope.body(i) }),
        });
        const body = (await res.body.json()) as { result?: { memories?: unknown[] } };
        ms.push(performance.now() - started);
        if (res.statusCode === 503) unavailable++;
        else if (res.statusCode !== 200)
          throw new Error(`search ${scope.name}: ${res.statusCode} ${JSON.stringify(body)}`);
        hits += body.result?.memories?.length ?? 0;
      }
      const s = summarizeLatencies(Float64Array.from(ms));
      out[scope.name] = {
        p50: s.p50,
        p95: s.p95,
        hits: round(hits / queries, 1),
        ...(unavailable > 0 ? { unavailable } : {}),
      };
    }
  } finally {
    await pool.close();
  }
  return out;
}

const SIZED = [
  'messages',
  'conversations',
  'search_items',
  'search_vectors',
  'search_keyword_totals',
  'search_keyword_pending',
  'search_keyword_overall_frequencies',
  'bench_scale_raw',
];

/** MiB of each table (heap and TOAST) and of its indexes, and of the whole database. */
export async function sizes(client: pg.Client): Promise<Record<string, { table_mib: number; index_mib: number }>> {
  const { rows } = await client.query<{ name: string; t: string; i: string }>(
    `SELECT name, pg_table_size(name::regclass) AS t, pg_indexes_size(name::regclass) AS i FROM unnest($1::text[]) AS name`,
    [SIZED],
  );
  const mib = (bytes: string) => round(Number(bytes) / 2 ** 20, 1);
  const out: Record<string, { table_mib: number; index_mib: number }> = {};
  for (const r of rows) out[r.name] = { table_mib: mib(r.t), index_mib: mib(r.i) };
  const { rows: db } = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
  out['database'] = { table_mib: mib(db[0]!.n), index_mib: 0 };
  return out;
}
