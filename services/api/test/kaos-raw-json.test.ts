import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRaw, type RawValue } from '../src/families/kaos/raw-json.js';
import { eventRanges } from '../src/families/kaos/event-ranges.js';
import { pythonStr, TextTooLong } from '../src/families/kaos/python-text.js';
import { contextOf } from '../src/families/kaos/kaos-ops.js';

/**
 * Characters the parser touches while `run` runs: each charCodeAt is one, each slice, startsWith
 * and JSON.parse as many as it spans. A reader whose cost per value is constant touches a bounded
 * number per character of its input, whatever the values are.
 */
function charactersTouched(run: () => void): number {
  const proto = String.prototype;
  const { charCodeAt, slice, startsWith } = proto;
  const parse = JSON.parse;
  let touched = 0;
  proto.charCodeAt = function (this: string, i: number) {
    touched++;
    return charCodeAt.call(this, i);
  };
  proto.slice = function (this: string, start?: number, end?: number) {
    const part = slice.call(this, start, end);
    touched += part.length;
    return part;
  };
  proto.startsWith = function (this: string, search: string, at?: number) {
    touched += search.length;
    return startsWith.call(this, search, at);
  };
  JSON.parse = (text: string) => {
    touched += text.length;
    return parse(text) as unknown;
  };
  try {
    run();
  } finally {
    Object.assign(proto, { charCodeAt, slice, startsWith });
    JSON.parse = parse;
  }
  return touched;
}

const plain = (v: RawValue | undefined): unknown => (v === undefined ? undefined : JSON.parse(pythonStrAsJson(v)));
// The parse tree back to JSON, to compare with JSON.parse's reading.
function pythonStrAsJson(v: RawValue): string {
  switch (v.kind) {
    case 'object':
      return `{${v.entries.map(([k, item]) => `${JSON.stringify(k)}:${pythonStrAsJson(item)}`).join(',')}}`;
    case 'array':
      return `[${v.items.map(pythonStrAsJson).join(',')}]`;
    case 'string':
      return JSON.stringify(v.value);
    case 'number':
      return v.text;
    case 'literal':
      return JSON.stringify(v.value);
  }
}

test("the raw parser reads what JSON.parse reads, keeping each value's place and its number text", () => {
  const text =
    ' {"a": [1, -0.0, 8.0, 12345678901234567890, 1e-7, "x\\"y\\u00e9"], "b": {"c": null, "d": true}, "e": false} ';
  const root = parseRaw(text)!;
  assert.deepEqual(plain(root), JSON.parse(text));
  assert.equal(root.kind, 'object');
  const a = root.kind === 'object' ? root.entries[0]![1] : undefined;
  assert.equal(
    a?.kind === 'array' && a.items.map((i) => (i.kind === 'number' ? i.text : '')).join(' '),
    '1 -0.0 8.0 12345678901234567890 1e-7 ',
  );
  assert.equal(text.slice(a!.start, a!.end), '[1, -0.0, 8.0, 12345678901234567890, 1e-7, "x\\"y\\u00e9"]');
  for (const bad of ['', '[1,', '{"a" 1}', '[01]', '1.', '-', '{"a":1,}', '[1] 2', '"open', 'tru'])
    assert.equal(parseRaw(bad), undefined, bad);
});

test('the raw parser and the Python text read any depth without the call stack', () => {
  const depth = 20_000;
  const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const root = parseRaw(deep);
  assert.equal(root?.kind, 'array');
  assert.equal(pythonStr(root!), deep);
  const objects = `${'{"k":'.repeat(depth)}true${'}'.repeat(depth)}`;
  assert.equal(pythonStr(parseRaw(objects)!).length, depth * "{'k': }".length + 'True'.length);
  const ranges = eventRanges(Buffer.from(`[{"content":${deep},"metadata":${objects}}]`));
  assert.deepEqual(ranges, [
    {
      content: { start: 12, end: 12 + deep.length },
      metadata: { start: 24 + deep.length, end: 24 + deep.length + objects.length },
    },
  ]);
});

test('the raw parser touches each character a bounded number of times, whatever the values', () => {
  const bodies = {
    'small numbers': `[${Array.from({ length: 50_000 }, (_, i) => i % 10).join(',')}]`,
    'long numbers': `[${Array.from({ length: 500 }, () => '9'.repeat(500)).join(',')}]`,
    strings: `[${Array.from({ length: 20_000 }, (_, i) => `"s\\n${i}"`).join(',')}]`,
    nesting: `${'[{"a":'.repeat(20_000)}null${'}]'.repeat(20_000)}`,
  };
  for (const [name, body] of Object.entries(bodies)) {
    const touched = charactersTouched(() => assert.ok(parseRaw(body), name));
    assert.ok(touched <= 8 * body.length, `${name}: ${touched} characters touched for ${body.length}`);
  }
});

test("an append's event ranges: each event's content and metadata as byte offsets, one pass, nothing decoded", () => {
  const body = Buffer.from(
    '[{"event_type":"t","content":{"é":[1,"]}"]},"metadata":{"m":1}}, 7, {"\\u0063ontent":"x","metadata":[1]}]',
  );
  const ranges = eventRanges(body)!;
  assert.equal(ranges.length, 3);
  const text = (r: { start: number; end: number } | undefined) => r && body.toString('utf8', r.start, r.end);
  assert.equal(text(ranges[0]!.content), '{"é":[1,"]}"]}');
  assert.equal(text(ranges[0]!.metadata), '{"m":1}');
  assert.deepEqual(ranges[1], {});
  // an escaped name is the name JSON.parse reads; metadata that is not an object is not kept
  assert.deepEqual(ranges[2], { content: { start: body.length - 20, end: body.length - 17 } });
  assert.equal(text(ranges[2]!.content), '"x"');
  assert.deepEqual(eventRanges(Buffer.from(' {"content": 1.5 } ')), [{ content: { start: 13, end: 16 } }]);

  const big = Buffer.from(`{"content":[${Array.from({ length: 300_000 }, (_, i) => i % 10).join(',')}]}`);
  let reads = 0;
  const counted = new Proxy(big, {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  assert.deepEqual(eventRanges(counted), [{ content: { start: 11, end: big.length - 1 } }]);
  assert.ok(reads <= 2 * big.length, `${reads} byte reads for ${big.length} bytes`);
});

test('the context text is bounded: past its characters it is refused, naming max_events', () => {
  const events = Array.from({ length: 3 }, () => ({
    event_type: 'user_message',
    content_json: `[${'1,'.repeat(999)}1]`,
  }));
  assert.equal(contextOf(events, 3).split('\n').length, 3);
  assert.throws(() => contextOf(events, 3, 5_000), { statusCode: 413, details: { field: 'max_events' } });
  assert.throws(() => pythonStr(parseRaw(events[0]!.content_json)!, 100), TextTooLong);
});
