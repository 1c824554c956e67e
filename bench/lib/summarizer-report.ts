import { grouped, round, summarizeLatencies } from './stats.js';
import { section, table } from './table.js';

export interface TokenStats {
  readonly min: number;
  readonly p50: number;
  readonly mean: number;
  readonly p95: number;
  readonly max: number;
  readonly first: number;
  readonly last: number;
  readonly total: number;
}

export interface Decile {
  readonly rounds: string;
  readonly summarizations: number;
  readonly incremental_mean: number | null;
  readonly full_history_mean: number | null;
  /** Append, trigger and wait until nothing is processing; the wait's listSummaries reads every row so far. */
  readonly round_ms_mean: number | null;
  readonly generation_ms_mean: number | null;
}

export interface SummarizerReport {
  readonly run: { id: string; started_at: string; store: 'pglite' | 'postgres'; cpus: number; node: string };
  readonly settings: { rounds: number; window: number; summarize_after_seq: number; seed: number; messages: number };
  readonly summarizations: { calls: number; completed: number; failed: number; calls_matched_to_rows: boolean };
  readonly incremental_tokens: TokenStats;
  readonly full_history_tokens: TokenStats & { method: string; exact_checks: number; exact_mismatches: number };
  /** Full-history tokens over incremental tokens, summed over the run. */
  readonly total_ratio: number;
  readonly deciles: readonly Decile[];
  readonly bound: {
    readonly window_tokens: number;
    readonly longest_summary_tokens: number;
    readonly prompt_overhead_tokens: number;
    readonly tokens: number;
    readonly max_call_tokens: number;
    readonly calls_over: number;
    readonly pass: boolean;
  };
  readonly flat: {
    readonly second_decile_mean: number | null;
    readonly last_decile_mean: number | null;
    readonly change_pct: number | null;
    readonly tolerance_pct: number;
    readonly pass: boolean;
  };
  readonly timing: {
    readonly wall_s: number;
    readonly summaries_per_s: number;
    readonly round_ms: { p50: number; p95: number; max: number };
    readonly generation_ms: { p50: number; p95: number; max: number };
  };
}

export function tokenStats(values: readonly number[]): TokenStats {
  const s = summarizeLatencies(Float64Array.from(values));
  let min = values.length > 0 ? Infinity : 0;
  let total = 0;
  for (const v of values) {
    min = Math.min(min, v);
    total += v;
  }
  return {
    min,
    p50: s.p50,
    mean: round(s.mean, 1),
    p95: s.p95,
    max: s.max,
    first: values[0] ?? 0,
    last: values.at(-1) ?? 0,
    total,
  };
}

const dash = (v: number | null) => (v === null ? '–' : round(v, 1));
const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

export function renderReport(r: SummarizerReport): string {
  const inc = r.incremental_tokens;
  const full = r.full_history_tokens;
  const lines = [
    section(
      `summarizer cost: ${r.settings.rounds} rounds, window ${r.settings.window}, after seq ${r.settings.summarize_after_seq}, ${r.run.store}`,
    ),
    `run ${r.run.id}, seed ${r.settings.seed}, ${r.settings.messages} messages, ${r.run.cpus} cpus, node ${r.run.node}`,
    `summarizations: ${r.summarizations.calls} model calls, ${r.summarizations.completed} completed rows, ${r.summarizations.failed} failed rows` +
      (r.summarizations.calls_matched_to_rows ? '' : '  (WARNING: calls and completed rows do not line up)'),
    '',
    'Input tokens per summarization (incremental: as the test model server counted them;',
    `full history: ${full.method})`,
    table(
      ['', 'min', 'p50', 'mean', 'p95', 'max', 'first', 'last', 'total'],
      [
        ['incremental', inc.min, inc.p50, inc.mean, inc.p95, inc.max, inc.first, inc.last, inc.total],
        ['full history', full.min, full.p50, full.mean, full.p95, full.max, full.first, full.last, full.total],
      ],
    ),
    `total: ${grouped(inc.total)} incremental vs ${grouped(full.total)} full history = ${grouped(r.total_ratio)}x` +
      ` (prefix-sum identity checked against the whole prompt at ${full.exact_checks} ends, ${full.exact_mismatches} mismatches)`,
    section('means per summarization, by decile of the run'),
    table(
      ['rounds', 'summaries', 'incremental', 'full history', 'full / incr', 'round ms', 'generation ms'],
      r.deciles.map((d) => [
        d.rounds,
        d.summarizations,
        dash(d.incremental_mean),
        dash(d.full_history_mean),
        d.incremental_mean && d.full_history_mean ? `${round(d.full_history_mean / d.incremental_mean, 1)}x` : '–',
        dash(d.round_ms_mean),
        dash(d.generation_ms_mean),
      ]),
    ),
    section('checks'),
    `bound = prompt without memory text or messages ${r.bound.prompt_overhead_tokens} (system prompt + headings)` +
      ` + longest summary ${r.bound.longest_summary_tokens} + most tokens in any ${r.settings.window} consecutive messages ${r.bound.window_tokens}` +
      ` = ${r.bound.tokens}`,
    `${verdict(r.bound.pass)}  every incremental call under the bound: max ${r.bound.max_call_tokens} of ${r.bound.tokens}, ${r.bound.calls_over} over`,
    `${verdict(r.flat.pass)}  input stays flat: last-decile mean ${dash(r.flat.last_decile_mean)} vs second-decile mean ${dash(r.flat.second_decile_mean)}` +
      ` (${r.flat.change_pct === null ? 'n/a' : `${r.flat.change_pct > 0 ? '+' : ''}${r.flat.change_pct}%`}, tolerance ±${r.flat.tolerance_pct}%)`,
    section('time'),
    `wall ${r.timing.wall_s} s for the rounds, ${r.timing.summaries_per_s} summaries/s;` +
      ` per round (append, trigger, wait until nothing is processing) p50 ${r.timing.round_ms.p50} ms, p95 ${r.timing.round_ms.p95} ms, max ${r.timing.round_ms.max} ms;` +
      ` generation_time_ms p50 ${r.timing.generation_ms.p50}, p95 ${r.timing.generation_ms.p95}, max ${r.timing.generation_ms.max}`,
    "a round's time includes the wait, whose listSummaries reads every row so far: its growth with the run is the",
    "benchmark's poll (and, on PGlite, the poll sharing one connection and one thread with the worker), not the tokens",
  ];
  return lines.join('\n');
}
