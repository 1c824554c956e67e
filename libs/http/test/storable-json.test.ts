import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unstorablePath } from '@memstream/http';

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
