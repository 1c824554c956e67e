import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-chars.js';

/**
 * Where each event of an append's body holds its content and metadata, as byte offsets into the
 * body as received, found without building a single value: a body is one event or a list of
 * them, and only an event's own members are read; what is inside a member is stepped over, one
 * byte at a time and with a depth count instead of a stack. So sizes are checked on these ranges
 * before anything is decoded, and a body of any shape costs one pass.
 *
 * This reads structure, it does not validate it: it runs before the JSON parser, and on a body
 * that is not JSON it still ends (every step moves on), at worst answering 413 where the parser
 * would have answered 400. UTF-8 never uses an ASCII byte inside a multi-byte character, so the
 * structural bytes are the characters they look like.
 */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface EventRanges {
  readonly content?: ByteRange;
  /** Present only when the event's metadata is an object. */
  readonly metadata?: ByteRange;
}

/** One entry per event of the body (one event, or each item of a list), in order; undefined if it is not JSON. */
export function eventRanges(body: Uint8Array): EventRanges[] | undefined {
  let at = space(body, 0);
  if (body[at] === OPEN_OBJECT) {
    const one = event(body, at);
    return one && space(body, one.end) === body.length ? [one.ranges] : undefined;
  }
  if (body[at] !== OPEN_ARRAY) return undefined;
  const events: EventRanges[] = [];
  at = space(body, at + 1);
  if (body[at] === CLOSE_ARRAY) return events;
  for (;;) {
    // Not an event object: the schema refuses it; its place is kept so later events keep their index.
    const item = body[at] === OPEN_OBJECT ? event(body, at) : { ranges: {}, end: valueEnd(body, at) };
    if (!item || item.end < 0) return undefined;
    events.push(item.ranges);
    at = space(body, item.end);
    if (body[at] === COMMA) at = space(body, at + 1);
    else return body[at] === CLOSE_ARRAY ? events : undefined;
  }
}

/** The event object at `at`: its content and metadata (the last of a repeated key, as JSON.parse keeps). */
function event(body: Uint8Array, at: number): { ranges: EventRanges; end: number } | undefined {
  let content: ByteRange | undefined;
  let metadata: ByteRange | undefined;
  at = space(body, at + 1);
  if (body[at] === CLOSE_OBJECT) return { ranges: {}, end: at + 1 };
  for (;;) {
    if (body[at] !== QUOTE) return undefined;
    const keyEnd = stringEnd(body, at);
    if (keyEnd < 0) return undefined;
    const key = keyOf(body, at, keyEnd);
    at = space(body, keyEnd);
    if (body[at] !== COLON) return undefined;
    const start = space(body, at + 1);
    const end = valueEnd(body, start);
    if (end < 0) return undefined;
    if (key === 'content') content = { start, end };
    else if (key === 'metadata') metadata = body[start] === OPEN_OBJECT ? { start, end } : undefined;
    at = space(body, end);
    if (body[at] === COMMA) at = space(body, at + 1);
    else if (body[at] === CLOSE_OBJECT)
      return { ranges: { ...(content ? { content } : {}), ...(metadata ? { metadata } : {}) }, end: at + 1 };
    else return undefined;
  }
}

/** A member's name: only 'content' and 'metadata' matter, but an escaped name must read as JSON.parse reads it. */
function keyOf(body: Uint8Array, start: number, end: number): string {
  const text = Buffer.from(body.buffer, body.byteOffset + start, end - start).toString('utf8');
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
}

/** Past the value at `at`: a container to its closing bracket, a string to its quote, a number or literal to its last character. */
function valueEnd(body: Uint8Array, at: number): number {
  let depth = 0;
  while (at < body.length) {
    const c = body[at]!;
    if (c === QUOTE) {
      at = stringEnd(body, at);
      if (at < 0 || depth === 0) return at;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      at++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth < 0) return -1;
      at++;
      if (depth === 0) return at;
    } else if (depth === 0) {
      while (at < body.length && !ends(body[at]!)) at++;
      return at;
    } else at++;
  }
  return -1;
}

/** Past the closing quote of the string whose opening quote is at `at`; -1 if unterminated. */
function stringEnd(body: Uint8Array, at: number): number {
  for (at++; at < body.length; at++) {
    const c = body[at];
    if (c === BACKSLASH) at++;
    else if (c === QUOTE) return at + 1;
  }
  return -1;
}

const ends = (c: number) =>
  c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function space(body: Uint8Array, at: number): number {
  while (at < body.length) {
    const c = body[at];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    at++;
  }
  return at;
}
