import type { CanonicalMessage } from '@memstream/schemas';
import { formatTime } from './dates.js';

/**
 * An episode as a model reads it: one line per message, numbered from 1, with the day and time
 * in the group's zone (a new day gets a heading line) and the sender's name and id.
 */
export function transcriptOf(messages: readonly CanonicalMessage[], zone: string): string {
  const lines: string[] = [];
  let day = '';
  const isoDay = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  messages.forEach((m, i) => {
    const at = new Date(m.created_at);
    const today = isoDay.format(at);
    if (today !== day) {
      day = today;
      lines.push(`-- ${today} --`);
    }
    lines.push(`${i + 1}. [${formatTime(at, zone)}] ${m.sender_name || m.sender_id} [${m.sender_id}]: ${m.content}`);
  });
  return lines.join('\n');
}
