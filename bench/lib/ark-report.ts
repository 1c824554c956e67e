import type { Goal } from './stats.js';
import type { LiveDeliveryFigures } from './live-delivery.js';
import type { RelayDeliveryFigures } from './relay-delivery.js';
import type { MemoryPeak } from './proc-monitor.js';
import type { LatencySummary } from './stats.js';
import { section, table } from './table.js';

/** One pass of `POST /messages` at one batch size. */
export interface BatchPassFigures {
  readonly batch_size: number;
  readonly requests: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** Answers that were not 2xx, transport errors included. */
  readonly non_2xx: number;
  /** 202: accepted but not stored within the service's sync wait (REQUEST_SYNC_TIMEOUT_MS). */
  readonly accepted_not_stored: number;
  readonly latency_ms: LatencySummary;
  readonly elapsed_s: number;
  readonly requests_per_s: number;
  readonly messages_per_s: number;
  /** Rows the 200s promised, and rows counted in Postgres right after the last answer. */
  readonly messages_promised: number;
  readonly messages_counted: number;
  readonly cores: Readonly<Record<string, number>>;
  readonly first_error?: string;
}

export interface ArkReport {
  readonly run: Record<string, string | number | boolean>;
  readonly settings: Record<string, number | string>;
  readonly background_cores: Readonly<Record<string, number>>;
  /** Replicas restarted before measuring because a probe write was not answered 200. */
  readonly restarts: ReadonlyArray<{ readonly replica: string; readonly reason: string }>;
  readonly batches: readonly BatchPassFigures[];
  readonly live: LiveDeliveryFigures & { readonly cores: Readonly<Record<string, number>> };
  readonly relay: RelayDeliveryFigures & { readonly cores: Readonly<Record<string, number>> };
  readonly memory_mib: Readonly<Record<string, MemoryPeak>>;
  readonly goals: readonly Goal[];
}

export function renderReport(r: ArkReport, processes: readonly string[]): string {
  const out: string[] = [];
  const replicas = Number(r.settings['replicas']);
  out.push(
    `memstream ARK benchmark: distributed mode (converter + ${replicas} read-api process${replicas > 1 ? 'es' : ''} on real Kafka, PostgreSQL, Redis)`,
  );
  out.push(
    `machine: ${r.run['cpus']} cpus (${r.run['cpu_model']}), ${r.run['mem_total_mib']} MiB RAM, node ${r.run['node']}, ${r.run['platform']}`,
  );
  out.push(`run ${r.run['id']} at ${r.run['started_at']}, ${r.run['elapsed_s']} s in all`);
  out.push(
    `settings: concurrency ${r.settings['concurrency']} keep-alive connections, ${r.settings['sessions']} sessions, ~${r.settings['message_chars']} chars a message, ` +
      `${r.settings['warmup']} warm-up POSTs (not counted); writes on read-api-1, streams on ${r.settings['stream_replica']}`,
  );
  const busyBefore = (r.background_cores['machine'] ?? 0) - (r.background_cores['bench'] ?? 0);
  if (busyBefore > 0.25)
    out.push(
      `WARNING: ${busyBefore.toFixed(2)} cores were busy before the benchmark started (someone else's load); the figures carry it.`,
    );
  for (const x of r.restarts)
    out.push(`WARNING: ${x.replica} was restarted before measuring: ${x.reason} (redis/ioredis#2037)`);

  out.push(section('POST /messages: 200 = stored (Kafka -> converter -> Postgres -> answer)'));
  const b = r.batches;
  const statusText = (f: BatchPassFigures) =>
    Object.entries(f.statuses)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ');
  out.push(
    table(
      ['messages per request', ...b.map((f) => String(f.batch_size))],
      [
        ['requests', ...b.map((f) => f.requests)],
        ['answers by status', ...b.map(statusText)],
        ['non-2xx', ...b.map((f) => f.non_2xx)],
        ['latency p50 ms', ...b.map((f) => f.latency_ms.p50)],
        ['latency p95 ms', ...b.map((f) => f.latency_ms.p95)],
        ['latency p99 ms', ...b.map((f) => f.latency_ms.p99)],
        ['latency max ms', ...b.map((f) => f.latency_ms.max)],
        ['requests/s', ...b.map((f) => f.requests_per_s)],
        ['messages/s', ...b.map((f) => f.messages_per_s)],
        ['elapsed s', ...b.map((f) => f.elapsed_s)],
        ['rows promised by 200s / counted after', ...b.map((f) => `${f.messages_promised} / ${f.messages_counted}`)],
      ],
    ),
  );
  for (const f of b) if (f.first_error) out.push(`batch ${f.batch_size}: first non-2xx or error: ${f.first_error}`);

  const c = r.relay;
  out.push(
    section("Controller relay: a chunk on one open POST /stream/{query} -> its data: line at ark-api's readers"),
  );
  out.push(
    `${c.readers} readers (GET ?from-beginning=true&wait-for-query=60, opened before the query existed); ${c.chunks} chunks, one every ${c.interval_ms} ms; ` +
      `relay answered ${c.relay_status}, completion posted as the relay closed answered ${c.complete_status} in ${c.complete_ms} ms`,
  );
  out.push(
    table(
      ['ms', 'p50', 'p95', 'p99', 'max', 'samples'],
      [
        [
          'chunk written -> line at a reader',
          c.delivery_ms.p50,
          c.delivery_ms.p95,
          c.delivery_ms.p99,
          c.delivery_ms.max,
          c.delivery_ms.count,
        ],
      ],
    ),
  );
  out.push(
    `frames: ${c.frames_received} of ${c.frames_expected} received; [DONE] at ${c.readers_done} of ${c.readers} readers`,
  );

  const l = r.live;
  out.push(section('Live delivery: POST /messages -> event: message frame on GET /stream/{id}'));
  out.push(
    `${l.streams} streams on ${l.sessions} sessions (on ${r.settings['stream_replica']}); ${l.posts} single-message POSTs, ` +
      `one every ${l.interval_ms} ms (achieved ${l.achieved_posts_per_s}/s, at most ${l.max_posts_in_flight} in flight)`,
  );
  out.push(
    table(
      ['ms', 'p50', 'p95', 'p99', 'max', 'samples'],
      [
        [
          'POST -> frame on the stream',
          l.delivery_ms.p50,
          l.delivery_ms.p95,
          l.delivery_ms.p99,
          l.delivery_ms.max,
          l.delivery_ms.count,
        ],
        [
          'POST -> its 200 (same requests)',
          l.post_latency_ms.p50,
          l.post_latency_ms.p95,
          l.post_latency_ms.p99,
          l.post_latency_ms.max,
          l.post_latency_ms.count,
        ],
      ],
    ),
  );
  out.push(
    table(
      ['frames', 'count'],
      [
        ['expected (2xx POSTs x streams of their session)', l.frames_expected],
        ['received', l.frames_received],
        ['missing', l.frames_missing],
        ['duplicate', l.frames_duplicate],
        ['unexpected (another session or unknown token)', l.frames_unexpected],
        ['arrived before the POST answered', l.frames_before_post_answer],
        ['streams closed by /complete with [STREAM_END] [DONE]', `${l.streams_completed} of ${l.streams}`],
        ['error frames', l.stream_errors],
      ],
    ),
  );
  out.push(
    `POST statuses: ${Object.entries(l.post_statuses)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ')}${l.first_error ? `; first error: ${l.first_error}` : ''}`,
  );

  out.push(section('Where the cores went (CPU seconds per wall second, per pass)'));
  const phases: Array<[string, Readonly<Record<string, number>>]> = [
    ['idle before', r.background_cores],
    ...b.map((f): [string, Readonly<Record<string, number>>] => [`batch ${f.batch_size}`, f.cores]),
    ['live', l.cores],
    ['relay', r.relay.cores],
  ];
  const rows = [...processes, 'bench', 'kafka', 'postgres', 'redis', 'other', 'machine'];
  out.push(
    table(
      ['process', ...phases.map(([p]) => p)],
      rows.map((g) => [g, ...phases.map(([, c]) => (c[g] === undefined ? '-' : c[g].toFixed(2)))]),
    ),
  );
  const crowded = phases.slice(1).filter(([, c]) => (c['other'] ?? 0) > 0.25);
  if (crowded.length > 0) {
    const which = crowded.map(([p, c]) => `${p} ${c['other']!.toFixed(2)}`).join(', ');
    out.push(
      `WARNING: processes outside the benchmark kept cores busy during the passes (row "other": ${which}); on 2 cores that inflates latencies.`,
    );
  }
  out.push('\nCPU per stored message, microseconds (cores / messages per second):');
  out.push(
    table(
      ['process', ...b.map((f) => `batch ${f.batch_size}`)],
      rows.map((g) => [
        g,
        ...b.map((f) =>
          f.cores[g] === undefined || f.messages_per_s === 0 ? '-' : Math.round((f.cores[g] / f.messages_per_s) * 1e6),
        ),
      ]),
    ),
  );

  out.push(section('Memory (peak resident set, MiB)'));
  out.push(
    table(
      ['process', 'peak VmRSS (polled 500 ms)', 'VmHWM (kernel)'],
      Object.entries(r.memory_mib).map(([p, m]) => [p, m.peakRssMiB, m.hwmMiB]),
    ),
  );

  out.push(section('Goal (issue 6)'));
  out.push(
    table(
      ['goal', 'measured', 'target', 'result'],
      r.goals.map((g) => [g.goal, g.value, g.target, g.pass ? 'PASS' : 'FAIL']),
    ),
  );
  return out.join('\n');
}

export type { Goal } from './stats.js';
