import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonProblem, unstorablePath } from '@memstream/http';

test('NUL and unpaired surrogates are found in values and keys, with their path', () => {
  assert.deepEqual(unstorablePath({ a: [{ b: 'ok' }, { c: 'x\u0000y' }] }), ['a', 1, 'c']);
  assert.deepEqual(unstorablePath({ a: { 'k\u0000': 1 } }), ['a', 'k\u0000']);
  assert.deepEqual(unstorablePath(['\ud800']), [0]);
  assert.deepEqual(unstorablePath({ x: 'a\udc00' }), ['x']);
  assert.deepEqual(unstorablePath('\u0000'), []);
});

test('well-formed text is storable, emoji (paired surrogates) included, and a deep nesting is walked without overflow', () => {
  assert.equal(unstorablePath({ a: 'plain', b: '😀 \u4e2d\u6587', c: [1, null, true, { d: '' }] }), undefined);
  let deep: unknown = 'bottom \u0000';
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.equal(unstorablePath(deep)?.length, 10_000);
});

test('nesting past the limit is found, at its path; the limit itself is fine', async () => {
  const { tooDeepPath, MAX_JSON_DEPTH } = await import('@memstream/http');
  let atLimit: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH; i++) atLimit = [atLimit];
  assert.equal(tooDeepPath(atLimit), undefined);
  assert.equal(tooDeepPath({ a: atLimit })?.length, MAX_JSON_DEPTH);
});

test('a parsed value is kept as sent only without non-finite numbers, prototype keys, unstorable text or deep nesting', () => {
  assert.equal(jsonProblem({ a: [1, -0.5, 1.7976931348623157e308, 'ok', null, { b: true }] }), undefined);
  assert.deepEqual(jsonProblem(JSON.parse('{"a": [0, {"n": 1e400}]}')), { path: ['a', 1, 'n'], kind: 'number' });
  assert.deepEqual(jsonProblem(JSON.parse('[-1e999]')), { path: [0], kind: 'number' });
  assert.deepEqual(jsonProblem(JSON.parse('{"x": {"__proto__": {}}}')), {
    path: ['x', '__proto__'],
    kind: 'prototype',
  });
  assert.deepEqual(jsonProblem(JSON.parse('{"constructor": {"prototype": 1}}')), {
    path: ['constructor', 'prototype'],
    kind: 'prototype',
  });
  // a constructor key that is plain data stays data
  assert.equal(jsonProblem({ constructor: 'Ada' }), undefined);
  assert.deepEqual(jsonProblem({ k: 'a\u0000' }), { path: ['k'], kind: 'text' });
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.equal(jsonProblem(deep)?.kind, 'depth');
});
