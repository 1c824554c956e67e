/**
 * JSON read without losing what JSON.parse loses: every value keeps its place in the text, and
 * numbers keep their digits. KAOS agents are Python: `8.0` is a float and stays `8.0`, an integer
 * past 2^53 keeps every digit, `-0.0` keeps its sign. Content is kept as the client wrote it, and
 * this tells where it is in a body and how Python would print it.
 */
export type RawValue =
  | { kind: 'object'; start: number; end: number; entries: Array<[string, RawValue]> }
  | { kind: 'array'; start: number; end: number; items: RawValue[] }
  | { kind: 'string'; start: number; end: number; value: string }
  | { kind: 'number'; start: number; end: number; text: string }
  | { kind: 'literal'; start: number; end: number; value: true | false | null };

/** Parses text JSON.parse accepted; undefined if it is not JSON after all. */
export function parseRaw(text: string): RawValue | undefined {
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const fail = (): never => {
    throw new SyntaxError(`not JSON at ${at}`);
  };
  const string = (): string => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail();
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): RawValue => {
    space();
    const start = at;
    const c = text[at];
    if (c === '{') {
      at++;
      const entries: Array<[string, RawValue]> = [];
      space();
      if (text[at] === '}') at++;
      else
        for (;;) {
          space();
          if (text[at] !== '"') fail();
          const key = string();
          space();
          if (text[at++] !== ':') fail();
          entries.push([key, value()]);
          space();
          const next = text[at++];
          if (next === '}') break;
          if (next !== ',') fail();
        }
      return { kind: 'object', start, end: at, entries };
    }
    if (c === '[') {
      at++;
      const items: RawValue[] = [];
      space();
      if (text[at] === ']') at++;
      else
        for (;;) {
          items.push(value());
          space();
          const next = text[at++];
          if (next === ']') break;
          if (next !== ',') fail();
        }
      return { kind: 'array', start, end: at, items };
    }
    if (c === '"') {
      const parsed = string();
      return { kind: 'string', start, end: at, value: parsed };
    }
    const literal = /^(true|false|null)/.exec(text.slice(at, at + 5));
    if (literal) {
      at += literal[1]!.length;
      return { kind: 'literal', start, end: at, value: JSON.parse(literal[1]!) as true | false | null };
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 1000));
    if (!number) return fail();
    at += number[0].length;
    return { kind: 'number', start, end: at, text: number[0] };
  };
  try {
    const v = value();
    space();
    return at === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The member `key` of an object (the last one, as JSON.parse takes the last of a repeated key). */
export function member(v: RawValue, key: string): RawValue | undefined {
  if (v.kind !== 'object') return undefined;
  let found: RawValue | undefined;
  for (const [k, item] of v.entries) if (k === key) found = item;
  return found;
}

export function textOf(source: string, v: RawValue): string {
  return source.slice(v.start, v.end);
}
