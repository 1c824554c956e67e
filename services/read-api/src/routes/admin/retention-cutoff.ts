import { RETENTION_PERIOD_PATTERN } from '@memstream/schemas';

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
  return new Date(at.getTime() - ((hours * 60 + minutes) * 60 + seconds) * 1000);
}
