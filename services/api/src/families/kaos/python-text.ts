import type { RawValue } from './raw-json.js';

/**
 * What Python's `str()` makes of a value json.loads read: KAOS builds its context text with an
 * f-string (`f"User: {event.content}"`), so content that is not a string appears as Python prints
 * it (`{'tool': 'calc', 'ok': True}`), and an agent reading its context sees what it would see
 * with its own memory. Numbers come from their JSON text: a `.`, `e` or `E` makes a float.
 */
export function pythonStr(v: RawValue, maxChars = Number.POSITIVE_INFINITY): string {
  return v.kind === 'string' ? v.value : pythonRepr(v, maxChars);
}

/** Past `maxChars` of text: what a read re-renders is bounded, whatever was stored. */
export class TextTooLong extends Error {}

/**
 * repr() of a value, written with a work list of its own instead of recursion (stored content may
 * nest as deep as JSON.parse took), stopping with TextTooLong once the text passes `maxChars`.
 */
function pythonRepr(root: RawValue, maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  const emit = (text: string) => {
    length += text.length;
    if (length > maxChars) throw new TextTooLong(`past ${maxChars} characters`);
    parts.push(text);
  };
  // Work to do, last first: a value to write, or text to emit.
  const work: Array<RawValue | string> = [root];
  while (work.length > 0) {
    const v = work.pop()!;
    if (typeof v === 'string') {
      emit(v);
      continue;
    }
    switch (v.kind) {
      case 'string':
        emit(reprString(v.value));
        break;
      case 'literal':
        emit(v.value === null ? 'None' : v.value ? 'True' : 'False');
        break;
      case 'number':
        // an integer's JSON text is Python's str of it, -0 aside (no leading zeros, no plus)
        emit(/[.eE]/.test(v.text) ? reprFloat(Number(v.text)) : v.text === '-0' ? '0' : v.text);
        break;
      case 'array':
        work.push(']');
        for (let i = v.items.length - 1; i >= 0; i--) work.push(v.items[i]!, i > 0 ? ', ' : '');
        emit('[');
        break;
      case 'object': {
        // A repeated key keeps its first place and its last value, as a dict built by json.loads does.
        const entries = [...new Map(v.entries.map(([k, item]) => [k, item] as const))];
        work.push('}');
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, item] = entries[i]!;
          work.push(item, `${i > 0 ? ', ' : ''}${reprString(k)}: `);
        }
        emit('{');
        break;
      }
    }
  }
  return parts.join('');
}

/** repr(float): the shortest digits that read back, positional between 1e-4 and 1e16, else with an exponent. */
export function reprFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const point = Number(exp) + 1; // digits are 0.d1d2... x 10^point
  if (point <= -4 || point > 16) {
    const e = point - 1;
    const rest = digits.slice(1);
    return `${sign}${digits[0]}${rest ? `.${rest}` : ''}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

// Python's str.isprintable is false for these categories (and for every space but ' ').
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** repr(str): single quotes unless the text holds one and no double quote; unprintables escaped. */
export function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NOT_PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!;
      const hex = code.toString(16);
      out +=
        code < 0x100
          ? `\\x${hex.padStart(2, '0')}`
          : code < 0x10000
            ? `\\u${hex.padStart(4, '0')}`
            : `\\U${hex.padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}
