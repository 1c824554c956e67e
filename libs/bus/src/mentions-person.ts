import type { BusRecord } from './bus.js';

/**
 * The default test of whether a dead-lettered record is a person's: their id appears as a whole
 * token (not inside a longer id) in its key, a header or its value, as raw text or as any string
 * of the value read as JSON (which also catches an id a producer wrote with `\u` escapes). It
 * names no family's fields on purpose: a dead letter is often a record that broke its schema, so
 * the field that should hold the id may be the one that is missing or misspelled. It errs toward
 * removing: another person's dead letter that mentions the id goes too.
 */
export function mentionsPerson(userId: string): (record: BusRecord) => boolean {
  const escaped = userId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const token = new RegExp(`(?<![\\p{L}\\p{N}_.@-])${escaped}(?![\\p{L}\\p{N}_@-]|\\.[\\p{L}\\p{N}])`, 'u');
  const inJson = (value: unknown): boolean => {
    if (typeof value === 'string') return token.test(value);
    if (Array.isArray(value)) return value.some(inJson);
    if (value !== null && typeof value === 'object')
      return Object.entries(value).some(([k, v]) => token.test(k) || inJson(v));
    return false;
  };
  return (record) => {
    if (record.key !== null && token.test(record.key)) return true;
    if (Object.values(record.headers).some((h) => token.test(h))) return true;
    const text = record.value.toString('utf8');
    if (token.test(text)) return true;
    try {
      return inJson(JSON.parse(text));
    } catch {
      return false; // not JSON: the raw text was all there was to search
    }
  };
}
