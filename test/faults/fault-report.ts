import type { WriteRecord } from './steady-load.js';

/** One row of the fault table the suite prints. */
export interface FaultReport {
  readonly fault: string;
  readonly acknowledged: number;
  readonly stored: number;
  /** Acknowledged writes stored more than once. */
  readonly duplicates: number;
  readonly refused503: number;
  readonly serverErrors: number;
  readonly hung: number;
  /** HTTP calls that got no answer at all (the connection failed or was cut). */
  readonly failedConnections: number;
  /** Direct producer sends the broker did not acknowledge (the producer's own retries ran out). */
  readonly producerFailures: number;
  /** The longest stretch in which no HTTP write was acknowledged, in seconds. */
  readonly longestUnavailableS: number;
  /** From the repair to the first acknowledged HTTP write, in seconds. */
  readonly recoveryS: number;
  /** From the repair until everything acknowledged was stored, indexed and no consumer lagged, in seconds. */
  readonly convergedS: number;
}

export function faultReport(
  fault: string,
  records: readonly WriteRecord[],
  at: { faultAt: number; repairedAt: number; convergedAt: number; stored: number; duplicates: number },
): FaultReport {
  const http = records.filter((r) => r.kind !== 'direct');
  const ackTimes = http
    .filter((r) => r.outcome === 'acked')
    .map((r) => r.endedAt)
    .sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < ackTimes.length; i++) longest = Math.max(longest, ackTimes[i]! - ackTimes[i - 1]!);
  const firstAfter = ackTimes.find((t) => t >= at.repairedAt);
  const s = (ms: number) => Math.round(ms / 100) / 10;
  return {
    fault,
    acknowledged: records.filter((r) => r.outcome === 'acked').length,
    stored: at.stored,
    duplicates: at.duplicates,
    refused503: records.filter((r) => r.status === 503).length,
    serverErrors: records.filter((r) => (r.status ?? 0) >= 500 && r.status !== 503).length,
    hung: records.filter((r) => r.outcome === 'hung').length,
    failedConnections: records.filter((r) => r.outcome === 'failed' && r.kind !== 'direct').length,
    producerFailures: records.filter((r) => r.outcome === 'failed' && r.kind === 'direct').length,
    longestUnavailableS: s(longest),
    recoveryS: firstAfter === undefined ? -1 : s(Math.max(0, firstAfter - at.repairedAt)),
    convergedS: s(at.convergedAt - at.repairedAt),
  };
}

/** The reports as a Markdown table, for the run's output and the note. */
export function reportTable(reports: readonly FaultReport[]): string {
  const head =
    '| fault | acknowledged | stored | duplicates | 503 | other 5xx | hung | cut connections | producer sends refused | longest unavailability (s) | recovery (s) | converged (s) |';
  const rule = '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
  const rows = reports.map(
    (r) =>
      `| ${r.fault} | ${r.acknowledged} | ${r.stored} | ${r.duplicates} | ${r.refused503} | ${r.serverErrors} | ${r.hung} | ${r.failedConnections} | ${r.producerFailures} | ${r.longestUnavailableS} | ${r.recoveryS} | ${r.convergedS} |`,
  );
  return [head, rule, ...rows].join('\n');
}
