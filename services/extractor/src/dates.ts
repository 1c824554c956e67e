/**
 * Absolute dates for memories ("on Monday, 8 May 2023, 13:56 UTC"), in the group's time zone when
 * it has one, so a memory read months later needs no "yesterday" resolved.
 */
export function formatDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(at);
}

export function formatTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
}

/** "on Monday, 8 May 2023, 13:56–14:20 UTC", or a range of days when the span crosses midnight. */
export function formatSpan(start: Date, end: Date, timeZone: string): string {
  const zone = timeZone === 'UTC' ? 'UTC' : `(${timeZone})`;
  const startDay = formatDay(start, timeZone);
  const endDay = formatDay(end, timeZone);
  if (startDay === endDay) {
    const from = formatTime(start, timeZone);
    const to = formatTime(end, timeZone);
    return from === to ? `on ${startDay}, ${from} ${zone}` : `on ${startDay}, ${from}–${to} ${zone}`;
  }
  return `from ${startDay}, ${formatTime(start, timeZone)} to ${endDay}, ${formatTime(end, timeZone)} ${zone}`;
}

/** A zone Intl accepts, else UTC (metadata is user input). */
export function validZone(zone: string | undefined): string {
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}
