import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-chars.js';

/**
 * JSON read without losing what JSON.parse loses: every value keeps its place in the text, and
 * numbers keep their digits. KAOS agents are Python: `8.0` is a float and stays `8.0`, an integer
 * past 2^53 keeps every digit, `-0.0` keeps its sign. Content is kept as the client wrote it, and
 * this tells how Python would print it (python-text.ts).
 *
 * The parser is a loop over the text with its open containers on a stack of its own, so any depth
 * JSON.parse took is read without the call stack, and each character is looked at a constant
 * number of times (issue 49: a recursive reader that ran a regular expression over a 1,000-character
 * slice per number held the process for 30 s on one 9.8 MB body).
 */
export type RawValue =
  | { kind: 'object'; start: number; end: number; entries: Array<[string, RawValue]> }
  | { kind: 'array'; start: number; end: number; items: RawValue[] }
  | { kind: 'string'; start: number; end: number; value: string }
  | { kind: 'number'; start: number; end: number; text: string }
  | { kind: 'literal'; start: number; end: number; value: true | false | null };

type Open =
  | { kind: 'object'; start: number; entries: Array<[string, RawValue]>; key: string }
  | { kind: 'array'; start: number; items: RawValue[] };

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Parses text JSON.parse accepted; undefined if it is not JSON after all. */
export function parseRaw(text: string): RawValue | undefined {
  const n = text.length;
  let at = 0;
  const space = () => {
    for (let c = text.charCodeAt(at); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++at));
  };
  /** The string starting at `at` (a quote), decoded; `at` moves past it. Undefined if unterminated. */
  const string = (): string | undefined => {
    const start = at;
    let escaped = false;
    for (at++; at < n; at++) {
      const c = text.charCodeAt(at);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        at++;
      }
    }
    if (at >= n) return undefined;
    at++;
    return escaped ? (JSON.parse(text.slice(start, at)) as string) : text.slice(start + 1, at - 1);
  };
  /** A member's key and its colon; undefined if there is none. */
  const key = (): string | undefined => {
    space();
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    const k = string();
    space();
    if (k === undefined || text.charCodeAt(at) !== COLON) return undefined;
    at++;
    return k;
  };
  const digits = () => {
    const from = at;
    while (isDigit(text.charCodeAt(at))) at++;
    return at > from;
  };
  const number = (): boolean => {
    if (text.charCodeAt(at) === 0x2d) at++;
    if (text.charCodeAt(at) === 0x30) at++;
    else if (!digits()) return false;
    if (text.charCodeAt(at) === 0x2e && (at++, !digits())) return false;
    const e = text.charCodeAt(at);
    if (e === 0x65 || e === 0x45) {
      const sign = text.charCodeAt(++at);
      if (sign === 0x2b || sign === 0x2d) at++;
      if (!digits()) return false;
    }
    return true;
  };

  const stack: Open[] = [];
  for (;;) {
    space();
    const start = at;
    const c = text.charCodeAt(at);
    let value: RawValue;
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      at++;
      space();
      if (text.charCodeAt(at) === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        at++;
        value =
          c === OPEN_OBJECT
            ? { kind: 'object', start, end: at, entries: [] }
            : { kind: 'array', start, end: at, items: [] };
      } else if (c === OPEN_ARRAY) {
        stack.push({ kind: 'array', start, items: [] });
        continue;
      } else {
        const k = key();
        if (k === undefined) return undefined;
        stack.push({ kind: 'object', start, entries: [], key: k });
        continue;
      }
    } else if (c === QUOTE) {
      const s = string();
      if (s === undefined) return undefined;
      value = { kind: 'string', start, end: at, value: s };
    } else if (c === 0x74 || c === 0x6e || c === 0x66) {
      const word = c === 0x74 ? 'true' : c === 0x6e ? 'null' : 'false';
      if (!text.startsWith(word, at)) return undefined;
      at += word.length;
      value = { kind: 'literal', start, end: at, value: word === 'true' ? true : word === 'false' ? false : null };
    } else if (number()) value = { kind: 'number', start, end: at, text: text.slice(start, at) };
    else return undefined;

    // The value is whole: it goes into its container, and each container it ends is whole too.
    for (;;) {
      const open = stack.at(-1);
      space();
      if (!open) return at === n ? value : undefined;
      if (open.kind === 'object') open.entries.push([open.key, value]);
      else open.items.push(value);
      const next = text.charCodeAt(at++);
      if (next === COMMA) {
        if (open.kind === 'object') {
          const k = key();
          if (k === undefined) return undefined;
          open.key = k;
        }
        break;
      }
      if (next !== (open.kind === 'object' ? CLOSE_OBJECT : CLOSE_ARRAY)) return undefined;
      stack.pop();
      value =
        open.kind === 'object'
          ? { kind: 'object', start: open.start, end: at, entries: open.entries }
          : { kind: 'array', start: open.start, end: at, items: open.items };
    }
  }
}
