/**
 * Time expressions in English text resolved to UTC day ranges: "yesterday" in a turn said on
 * 8 May 2023 is 7 May 2023; "in June" in a question is June of any year. Search uses them to
 * connect a question that names a date with the turns that happened (or speak of) then. Only
 * the forms that conversations and questions use often are read; anything else is simply not a
 * date, which costs recall, never correctness.
 */

/** A span of whole UTC days, [from, to); `anyYear` matches the same days of every year ("in June"). */
export interface DayRange {
  readonly from: number;
  readonly to: number;
  readonly anyYear?: boolean;
}

const DAY_MS = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(${MONTHS.map((m) => `${m}|${m.slice(0, 3)}`).join('|')})\\.?`;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
};

const monthOf = (name: string) =>
  MONTHS.findIndex((m) => m === name.toLowerCase() || m.slice(0, 3) === name.toLowerCase().slice(0, 3));
const dayStart = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;
const days = (start: number, n: number): DayRange => ({ from: start, to: start + n * DAY_MS });
const month = (y: number, m: number): DayRange => ({ from: Date.UTC(y, m, 1), to: Date.UTC(y, m + 1, 1) });

// Compiled once: search runs these over every candidate of a query that names a date.
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi');
const MONTH_YEAR = new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`, 'gi');
// A month alone is a date only after "in"/"during"/"of"/"since": "may" is also a verb.
const IN_MONTH = new RegExp(`\\b(?:in|during|of|since|early|late|mid)\\s+${MONTH}\\b`, 'gi');
const IN_YEAR = /\b(?:in|of|since|during)\s+((?:19|20)\d\d)\b/gi;

/** Dates written out: "13 October 2023", "October 13, 2023", "May 2023", "in June", "2022". */
function absolute(text: string, out: DayRange[]): void {
  const taken: Array<[number, number]> = [];
  const free = (i: number, n: number) => !taken.some(([a, b]) => i < b && a < i + n);
  const scan = (re: RegExp, f: (m: RegExpExecArray) => DayRange | undefined) => {
    for (const m of text.matchAll(re)) {
      if (!free(m.index, m[0].length)) continue;
      const r = f(m as RegExpExecArray);
      if (r) {
        out.push(r);
        taken.push([m.index, m.index + m[0].length]);
      }
    }
  };
  const day = (y: string, mo: string, d: string) => {
    const date = Date.UTC(Number(y), monthOf(mo), Number(d));
    return new Date(date).getUTCDate() === Number(d) ? days(date, 1) : undefined;
  };
  scan(DAY_MONTH_YEAR, (m) => day(m[3]!, m[2]!, m[1]!));
  scan(MONTH_DAY_YEAR, (m) => day(m[3]!, m[1]!, m[2]!));
  scan(MONTH_YEAR, (m) => month(Number(m[2]), monthOf(m[1]!)));
  scan(IN_MONTH, (m) => ({ ...month(2000, monthOf(m[1]!)), anyYear: true }));
  scan(IN_YEAR, (m) => ({ from: Date.UTC(Number(m[1]), 0, 1), to: Date.UTC(Number(m[1]) + 1, 0, 1) }));
}

/** Expressions relative to `now` (a turn's time, or the moment a question is asked). */
function relative(text: string, now: number, out: DayRange[]): void {
  const today = dayStart(now);
  const d = new Date(today);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const weekStart = today - d.getUTCDay() * DAY_MS;
  const lower = text.toLowerCase();
  const has = (re: RegExp) => re.test(lower);
  if (has(/\b(today|tonight|this (morning|afternoon|evening))\b/)) out.push(days(today, 1));
  if (has(/\b(yesterday|last night)\b/)) out.push(days(today - DAY_MS, 1));
  if (has(/\btomorrow\b/)) out.push(days(today + DAY_MS, 1));
  if (has(/\b(last|past) weekend\b/)) out.push(days(weekStart - DAY_MS, 2));
  if (has(/\b(this|next) weekend\b/)) out.push(days(weekStart + 6 * DAY_MS, 2));
  if (has(/\b(last|past|previous) week\b/)) out.push(days(weekStart - 7 * DAY_MS, 7));
  if (has(/\bthis week\b/)) out.push(days(weekStart, 7));
  if (has(/\bnext week\b/)) out.push(days(weekStart + 7 * DAY_MS, 7));
  if (has(/\b(last|past|previous) month\b/)) out.push(month(y, mo - 1));
  if (has(/\bthis month\b/)) out.push(month(y, mo));
  if (has(/\bnext month\b/)) out.push(month(y, mo + 1));
  if (has(/\b(last|past|previous) year\b/)) out.push({ from: Date.UTC(y - 1, 0, 1), to: Date.UTC(y, 0, 1) });
  if (has(/\bthis year\b/)) out.push({ from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) });
  if (has(/\bnext year\b/)) out.push({ from: Date.UTC(y + 1, 0, 1), to: Date.UTC(y + 2, 0, 1) });
  for (const m of lower.matchAll(
    /\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|few|couple)\s+(?:of\s+)?(day|week|month|year)s?\s+ago\b/g,
  )) {
    const n = NUMBERS[m[1]!] ?? Number(m[1]);
    const unit = m[2]!;
    if (unit === 'day') out.push(days(today - n * DAY_MS, 1));
    else if (unit === 'week') out.push(days(today - (n * 7 + 3) * DAY_MS, 7));
    else if (unit === 'month') out.push(month(y, mo - n));
    else out.push({ from: Date.UTC(y - n, 0, 1), to: Date.UTC(y - n + 1, 0, 1) });
  }
  for (const m of lower.matchAll(
    /\b(last|this past|on|next)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/g,
  )) {
    const target = WEEKDAYS.indexOf(m[2]!);
    const back = (d.getUTCDay() - target + 7) % 7 || 7;
    out.push(days(m[1] === 'next' ? today + (7 - back) * DAY_MS : today - back * DAY_MS, 1));
  }
}

/** The day ranges a text speaks of, resolved against `now` (ms since the epoch). */
export function timeExpressions(text: string, now: number): DayRange[] {
  const out: DayRange[] = [];
  absolute(text, out);
  relative(text, now, out);
  return out;
}

/** Whether a text holds any time expression at all (a "when" question's answer usually does). */
export function mentionsTime(text: string): boolean {
  return timeExpressions(text, 0).length > 0 || /\b(ago|since|until|recently|last|weekend|\d{4})\b/i.test(text);
}

/** Whether a moment (ms) or a range overlaps a question's range; an any-year range compares month and day only. */
export function overlaps(q: DayRange, r: DayRange): boolean {
  if (!q.anyYear) return r.from < q.to && q.from < r.to;
  const inYear = (t: number) => {
    const d = new Date(t);
    return Date.UTC(2000, d.getUTCMonth(), d.getUTCDate());
  };
  // ranges here are a month at most, so comparing both ends within the year is enough
  const a = inYear(r.from);
  const b = inYear(r.to - 1) + DAY_MS;
  return b > a ? a < q.to && q.from < b : true;
}
