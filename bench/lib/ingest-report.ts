import type { Goal } from './stats.js';
import { profileSections, type ProfileSummary } from './cpu-profile.js';
import type { RoundTrips } from './probes.js';
import type { MemoryPeak } from './proc-monitor.js';
import type { LatencySummary } from './stats.js';
import { section, table } from './table.js';

export interface PathFigures {
  readonly sent: number;
  /** Answers (HTTP 2xx) or records (Kafka acks) the system took. */
  readonly accepted: number;
  readonly accepted_per_s: number;
  readonly stored: number;
  readonly stored_complete: boolean;
  /** From the first request or record sent until the last row was seen in Postgres. */
  readonly stored_elapsed_s: number;
  readonly stored_per_s: number;
  readonly fraction_of_ceiling: number;
  /** Converter transactions that stored this phase's rows, and rows per transaction (its batch size). */
  readonly converter_transactions: number;
  readonly messages_per_transaction: number;
  /** Cores each process used over the phase (CPU seconds / wall seconds); `machine` is everything. */
  readonly cores: Readonly<Record<string, number>>;
}

export interface HttpFigures extends PathFigures {
  readonly statuses: Readonly<Record<string, number>>;
  readonly latency_ms: LatencySummary;
  readonly first_error?: string;
}

export interface IngestReport {
  readonly run: Record<string, string | number | boolean>;
  readonly settings: Record<string, number | boolean>;
  readonly http_sync: HttpFigures;
  readonly http_async: HttpFigures;
  /** fraction_of_producer: stored/s end to end over the raw producer's records/s, both of this run. */
  readonly kafka: PathFigures & { readonly produce_elapsed_s: number; readonly fraction_of_producer: number };
  /** Cores busy per process group while nothing of the benchmark ran yet: someone else's load shows here. */
  readonly background_cores: Readonly<Record<string, number>>;
  readonly copy: { readonly rows: number; readonly elapsed_s: number; readonly rows_per_s: number };
  readonly round_trips: RoundTrips;
  readonly memory_mib: Readonly<Record<string, MemoryPeak>>;
  readonly goals: readonly Goal[];
  readonly profile?: Readonly<Record<string, ProfileSummary | undefined>>;
}

export function renderReport(r: IngestReport): string {
  const out: string[] = [];
  out.push(
    'memstream ingest benchmark: distributed mode (ingest-gateway + converter processes on real Kafka, PostgreSQL, Redis)',
  );
  out.push(
    `machine: ${r.run['cpus']} cpus (${r.run['cpu_model']}), ${r.run['mem_total_mib']} MiB RAM, node ${r.run['node']}, ${r.run['platform']}`,
  );
  out.push(
    `run ${r.run['id']} at ${r.run['started_at']}; profiling ${r.run['profile'] ? 'ON (figures include profiler overhead)' : 'off'}`,
  );
  out.push(
    `settings: ${r.settings['http_messages']} POSTs per HTTP pass at concurrency ${r.settings['concurrency']}, ${r.settings['groups']} groups, ` +
      `${r.settings['kafka_messages']} Kafka records in sends of ${r.settings['kafka_chunk']}, ${r.settings['warmup']} warm-up POSTs (not counted)`,
  );

  const s = r.http_sync;
  const a = r.http_async;
  const statusText = (f: HttpFigures) =>
    Object.entries(f.statuses)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ');
  out.push(section('HTTP: POST /api/v1/memories, one message per call'));
  out.push(
    table(
      ['', 'sync (default, 200 = stored)', 'sync_mode=false (202 = on Kafka)'],
      [
        ['requests sent', s.sent, a.sent],
        ['answers by status', statusText(s), statusText(a)],
        ['accepted/s (2xx/s)', s.accepted_per_s, a.accepted_per_s],
        ['latency p50 ms', s.latency_ms.p50, a.latency_ms.p50],
        ['latency p95 ms', s.latency_ms.p95, a.latency_ms.p95],
        ['latency p99 ms', s.latency_ms.p99, a.latency_ms.p99],
        ['latency max ms', s.latency_ms.max, a.latency_ms.max],
        [
          'rows stored',
          `${s.stored}${s.stored_complete ? '' : ' (INCOMPLETE)'}`,
          `${a.stored}${a.stored_complete ? '' : ' (INCOMPLETE)'}`,
        ],
        ['first sent -> last row stored, s', s.stored_elapsed_s, a.stored_elapsed_s],
        ['stored/s end to end', s.stored_per_s, a.stored_per_s],
        ['fraction of COPY ceiling', pct(s.fraction_of_ceiling), pct(a.fraction_of_ceiling)],
        ['converter transactions (messages each)', txText(s), txText(a)],
      ],
    ),
  );
  for (const f of [s, a]) if (f.first_error) out.push(`first non-2xx or error: ${f.first_error}`);

  const k = r.kafka;
  out.push(section('Kafka producer -> input topic -> converter -> Postgres'));
  out.push(
    table(
      ['', 'value'],
      [
        ['records produced (acked)', k.accepted],
        ['produce time, s', k.produce_elapsed_s],
        ['produce rate (raw kafkajs baseline), records/s', k.accepted_per_s],
        ['rows stored', `${k.stored}${k.stored_complete ? '' : ' (INCOMPLETE)'}`],
        ['first sent -> last row stored, s', k.stored_elapsed_s],
        ['stored/s end to end', k.stored_per_s],
        ['fraction of the raw producer rate (same run)', pct(k.fraction_of_producer)],
        ['fraction of COPY ceiling', pct(k.fraction_of_ceiling)],
        ['converter transactions (messages each)', txText(k)],
      ],
    ),
  );

  out.push(section('Ceiling: one COPY of the same rows into a table shaped like messages'));
  out.push(
    table(
      ['', 'value'],
      [
        ['rows', r.copy.rows],
        ['elapsed, s', r.copy.elapsed_s],
        ['rows/s', r.copy.rows_per_s],
      ],
    ),
  );

  out.push(section('Round trips, one at a time (ms): the floor under each request'));
  out.push(
    table(
      ['', 'p50', 'p99', 'max'],
      Object.entries(r.round_trips).map(([name, l]) => [
        name.replace(/_ms$/, '').replaceAll('_', ' '),
        l.p50,
        l.p99,
        l.max,
      ]),
    ),
  );

  out.push(section('Where the cores went (CPU seconds per wall second, each phase until its last row was stored)'));
  const phases: Array<[string, Readonly<Record<string, number>>]> = [
    ['before start (idle)', r.background_cores],
    ['HTTP sync', s.cores],
    ['HTTP sync_mode=false', a.cores],
    ['Kafka producer', k.cores],
  ];
  out.push(
    table(
      ['process', ...phases.map(([p]) => p)],
      CORE_ROWS.map((g) => [g, ...phases.map(([, c]) => (c[g] === undefined ? '-' : c[g].toFixed(2)))]),
    ),
  );
  out.push('\nCPU per stored message, microseconds (cores / stored per second):');
  out.push(
    table(
      ['process', ...phases.slice(1).map(([p]) => p)],
      CORE_ROWS.map((g) => [
        g,
        ...[s, a, k].map((f) =>
          f.cores[g] === undefined || f.stored_per_s === 0 ? '-' : Math.round((f.cores[g] / f.stored_per_s) * 1e6),
        ),
      ]),
    ),
  );
  const busyBefore = (r.background_cores['machine'] ?? 0) - (r.background_cores['bench'] ?? 0);
  if (busyBefore > 0.25) {
    out.push(
      `WARNING: ${busyBefore.toFixed(2)} cores were busy before the benchmark started (row "other": someone else's load); the figures below carry it.`,
    );
  }

  out.push(section('Memory (peak resident set, MiB)'));
  out.push(
    table(
      ['process', 'peak VmRSS (polled 500 ms)', 'VmHWM (kernel)'],
      Object.entries(r.memory_mib).map(([p, m]) => [p, m.peakRssMiB, m.hwmMiB]),
    ),
  );

  out.push(section('Goals (issue 3)'));
  out.push(
    table(
      ['goal', 'measured', 'target', 'result'],
      r.goals.map((g) => [g.goal, g.value, g.target, g.pass ? 'PASS' : 'FAIL']),
    ),
  );

  if (r.profile) out.push(...profileSections(r.profile));
  return out.join('\n');
}

const CORE_ROWS = ['gateway', 'converter', 'bench', 'kafka', 'postgres', 'redis', 'other', 'machine'];

function txText(f: PathFigures): string {
  return `${f.converter_transactions.toLocaleString('en-US')} (${f.messages_per_transaction})`;
}

function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

export type { Goal } from './stats.js';
