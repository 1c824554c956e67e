import type { RawCeiling } from './raw-insert.js';
import type { LatencySummary } from './stats.js';
import { section, table } from './table.js';
import { mib, type TreeMemory } from './process-memory.js';
import { profileSections, type ProfileSummary } from './cpu-profile.js';

export interface WritePass {
  readonly sent: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** 2xx answers per second, first request sent to last answer read. */
  readonly acknowledged_per_s: number;
  readonly latency_ms: LatencySummary;
  readonly stored: number;
  readonly stored_complete: boolean;
  /** First request sent until every acknowledged message was readable. */
  readonly stored_per_s: number;
  /** Cores the server and its descendants used over the pass; `machine` is everything on it. */
  readonly cores: { readonly server: number; readonly machine: number };
  readonly first_error?: string;
}

export interface EmbeddedReport {
  readonly run: Record<string, string | number>;
  readonly settings: Record<string, string | number>;
  /** Cores busy on the machine before the server started: someone else's load, carried by every figure. */
  readonly background_cores: number;
  readonly healthy_ms: { readonly fresh: number; readonly existing: number };
  readonly memory: { readonly idle: TreeMemory; readonly peak: TreeMemory };
  readonly held: WritePass;
  readonly accepted: WritePass;
  readonly locomo: {
    readonly conversations: number;
    readonly messages: number;
    readonly import_exit_code: number;
    readonly stored: number;
    readonly stored_complete: boolean;
    /** Import start until every message was readable. */
    readonly elapsed_s: number;
    readonly cores: { readonly server: number; readonly machine: number };
  };
  readonly raw: RawCeiling | { readonly skipped: string };
  readonly profile?: Readonly<Record<string, ProfileSummary | undefined>>;
}

/** The distributed mode's figures as the README records them: a reference, not measured here. */
export const DISTRIBUTED_REFERENCE =
  'distributed mode, recorded in README.md (run bbfba1dd28, 64 in flight, Kafka + PostgreSQL + Redis), NOT measured in this run: ' +
  'held POSTs 1,953 stored/s (p50/p99 30/89 ms), sync_mode=false 4,803 stored/s, COPY ceiling 145,679 rows/s';

export function renderEmbeddedReport(r: EmbeddedReport): string {
  const out: string[] = [];
  out.push(`memstream embedded benchmark: \`${r.run['command']}\` as its own process group, on a fresh DATA_DIR`);
  out.push(
    `machine: ${r.run['cpus']} cpus (${r.run['cpu_model']}), ${r.run['mem_total_mib']} MiB RAM, node ${r.run['node']}; run ${r.run['id']} at ${r.run['started_at']}`,
  );
  out.push(
    `settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
  if (r.background_cores > 0.25) {
    out.push(
      `WARNING: ${r.background_cores.toFixed(2)} cores were busy before the server started (other work on this shared machine); every figure carries it.`,
    );
  }

  const h = r.held;
  const a = r.accepted;
  const statuses = (p: WritePass) =>
    Object.entries(p.statuses)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ');
  const stored = (p: WritePass) => `${p.stored.toLocaleString('en-US')}${p.stored_complete ? '' : ' (INCOMPLETE)'}`;
  out.push(section(`Writes: POST /api/v1/memories, one message per call, ${r.settings['concurrency']} in flight`));
  out.push(
    table(
      ['', 'held (default, 200 = stored)', 'sync_mode=false (202 = accepted)'],
      [
        ['answers by status', statuses(h), statuses(a)],
        ['acknowledged writes/s', h.acknowledged_per_s, a.acknowledged_per_s],
        ['latency p50 ms', h.latency_ms.p50, a.latency_ms.p50],
        ['latency p99 ms', h.latency_ms.p99, a.latency_ms.p99],
        ['latency max ms', h.latency_ms.max, a.latency_ms.max],
        ['messages stored', stored(h), stored(a)],
        ['stored/s end to end', h.stored_per_s, a.stored_per_s],
        ['cores: server tree / machine', cores(h.cores), cores(a.cores)],
      ],
    ),
  );
  for (const p of [h, a]) if (p.first_error) out.push(`first non-2xx or error: ${p.first_error}`);

  const l = r.locomo;
  out.push(section('LoCoMo dev import over HTTP (memstream import --format locomo), until every message is stored'));
  out.push(
    table(
      ['', 'value'],
      [
        ['conversations / messages', `${l.conversations} / ${l.messages.toLocaleString('en-US')}`],
        ['import exit code', l.import_exit_code],
        ['messages stored', `${l.stored.toLocaleString('en-US')}${l.stored_complete ? '' : ' (INCOMPLETE)'}`],
        ['import time, s', l.elapsed_s],
        ['messages/s', l.elapsed_s > 0 ? Math.round(l.stored / l.elapsed_s) : 0],
        ['cores: server tree / machine', cores(l.cores)],
      ],
    ),
  );

  out.push(section('Start-up and memory (server process and all its descendants)'));
  out.push(
    table(
      ['', 'value'],
      [
        ['time to healthy, fresh DATA_DIR, ms', r.healthy_ms.fresh],
        ['time to healthy, existing DATA_DIR, ms', r.healthy_ms.existing],
        [
          'idle RSS / PSS, MiB (after start, before load)',
          `${mib(r.memory.idle.rssKiB)} / ${mib(r.memory.idle.pssKiB)} (${r.memory.idle.processes} processes)`,
        ],
        [
          'peak RSS / PSS under load, MiB (sampled every 250 ms)',
          `${mib(r.memory.peak.rssKiB)} / ${mib(r.memory.peak.pssKiB)} (up to ${r.memory.peak.processes} processes)`,
        ],
      ],
    ),
  );

  out.push(section('Raw insert ceiling on the same store, same run'));
  if ('skipped' in r.raw) {
    out.push(`skipped: ${r.raw.skipped}`);
  } else {
    out.push(`store: ${r.raw.store}`);
    out.push(
      table(
        ['', 'rows', 'elapsed ms', 'rows/s', 'held writes/s as share'],
        [
          [
            `one row per INSERT, autocommit, ${r.settings['concurrency']} clients`,
            r.raw.single.rows,
            r.raw.single.elapsedMs,
            r.raw.single.rowsPerS,
            share(h.acknowledged_per_s, r.raw.single.rowsPerS),
          ],
          [
            `multi-row INSERT, ${r.raw.multi.batch} rows each`,
            r.raw.multi.rows,
            r.raw.multi.elapsedMs,
            r.raw.multi.rowsPerS,
            share(h.acknowledged_per_s, r.raw.multi.rowsPerS),
          ],
        ],
      ),
    );
  }

  if (r.profile) out.push(...profileSections(r.profile));
  out.push(section('Reference'));
  out.push(DISTRIBUTED_REFERENCE);
  out.push(
    'Figures on a 2-core machine shared with other work are noisy: compare runs side by side, not with a single number.',
  );
  return out.join('\n');
}

function cores(c: { server: number; machine: number }): string {
  return `${c.server.toFixed(2)} / ${c.machine.toFixed(2)}`;
}

function share(rate: number, ceiling: number): string {
  return ceiling > 0 ? `${((rate / ceiling) * 100).toFixed(1)}%` : '-';
}
