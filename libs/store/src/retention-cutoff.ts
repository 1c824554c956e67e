import { RETENTION_PERIOD_PATTERN } from '@memstream/schemas';

const EARLIEST = Date.parse('0001-01-01T00:00:00Z');

/**
 * The time `retentionPeriod` before `now`. Years and months are calendar ones, clamped to the end
 * of a shorter month (P1M before 31 March is 28 or 29 February), as java.time's Period does.
 */
export function cutoffOf(retentionPeriod: string, now: Date): Date {
  const m = RETENTION_PERIOD_PATTERN.exec(retentionPeriod)!;
  const [years, months, weeks, days, hours, minutes, seconds] = m.slice(1).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = new Date(now);
  const month = at.getUTCFullYear() * 12 + at.getUTCMonth() - years * 12 - months;
  const lastDay = new Date(Date.UTC(Math.floor(month / 12), (month % 12) + 1, 0)).getUTCDate();
  at.setUTCFullYear(Math.floor(month / 12), month % 12, Math.min(at.getUTCDate(), lastDay));
  at.setUTCDate(at.getUTCDate() - weeks * 7 - days);
  const cutoff = at.getTime() - ((hours * 60 + minutes) * 60 + seconds) * 1000;
  // A period longer than recorded time evicts nothing: the cutoff stops at year 1, which
  // PostgreSQL can store (a Date past its own range is NaN).
  return Number.isFinite(cutoff) && cutoff > EARLIEST ? new Date(cutoff) : new Date(EARLIEST);
}
