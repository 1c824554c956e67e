import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOPICS } from '@memstream/schemas';
import { gateway } from './gateway-alone.js';

// ARK's POST /stream reads its newline-delimited body itself, line by line: what the JSON parser
// refuses in every other body must be refused here too, not relayed changed.
const chunk = { id: 'q', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hel' } }] };

async function relay(t: Parameters<typeof gateway>[0], body: string, contentType = 'application/x-ndjson') {
  const { server, published } = await gateway(t, { topic: TOPICS.arkMessages });
  const res = await server.inject({
    method: 'POST',
    url: '/stream/s-input',
    headers: { 'content-type': contentType },
    payload: body,
  });
  await new Promise((r) => setImmediate(r));
  const relayed = published.map((r) => (JSON.parse(r.value.toString()) as { data: { chunks: unknown[] } }).data.chunks);
  return { res, relayed };
}

test("a relayed line with a __proto__ key is refused in ARK's shape, naming it; the line before it is relayed unchanged", async (t) => {
  const body = `${JSON.stringify(chunk)}\n{"__proto__": {"role": "assistant"}, "choices": []}\n`;
  const { res, relayed } = await relay(t, body);
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().code, 'INVALID_PARAMETER');
  assert.match(res.json().error, /line 2: invalid field __proto__/);
  assert.deepEqual(relayed, [[chunk]], 'only the good line, as sent; the bad one is not relayed as {}');
});

test("a relayed number past a double's range is refused, not relayed as null", async (t) => {
  for (const line of [
    '{"choices": [{"delta": {"content": "x"}}], "usage": {"total_tokens": 1e400}}',
    '[{"n": -1e999}]',
  ]) {
    const { res, relayed } = await relay(t, `${line}\n`);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'INVALID_PARAMETER');
    assert.match(res.json().error, /line 1: invalid field (usage\.total_tokens|0\.n): the number is past the range/);
    assert.deepEqual(relayed, [], 'nothing relayed');
  }
});

test('a JSON (not newline-delimited) relay body is refused the same way', async (t) => {
  for (const body of ['{"usage": {"total_tokens": 1e400}}', '[{"__proto__": {}}]']) {
    const { res, relayed } = await relay(t, body, 'application/json');
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error, /invalid field (usage\.total_tokens|0\.__proto__)/);
    assert.deepEqual(relayed, []);
  }
});

test('a constructor key holding plain data is relayed as sent', async (t) => {
  const kept = { ...chunk, constructor: 'gpt', usage: { total_tokens: 1.5e300 } };
  const { res, relayed } = await relay(t, `${JSON.stringify(kept)}\n`);
  assert.equal(res.statusCode < 300, true, res.body);
  assert.deepEqual(relayed, [[kept]]);
});
