import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeJsonProblem, jsonProblem, MAX_JSON_DEPTH } from '@memstream/schemas';

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
  assert.deepEqual(jsonProblem({ a: { 'k\ud800': 1 } }), { path: ['a', 'k\ud800'], kind: 'text' });
});

test('nesting is a problem past the limit, not at it, and a deep value is walked without overflow', () => {
  let atLimit: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH; i++) atLimit = [atLimit];
  assert.equal(jsonProblem(atLimit), undefined);
  assert.deepEqual(jsonProblem({ a: atLimit })?.kind, 'depth');
  let deep: unknown = 'bottom';
  for (let i = 0; i < 10_000; i++) deep = { d: deep };
  assert.equal(jsonProblem(deep)?.kind, 'depth');
  assert.equal(jsonProblem(deep, { maxDepth: Number.POSITIVE_INFINITY }), undefined, 'depth left alone');
  const bottom = JSON.parse(`${'['.repeat(10_000)}1e400${']'.repeat(10_000)}`);
  assert.equal(jsonProblem(bottom, { maxDepth: Number.POSITIVE_INFINITY })?.path.length, 10_000);
});

test('of several problems, the first in document order is named, whichever the quick walk met first', () => {
  const value = JSON.parse('{"a": {"b": [1, 2, {"c": 1e400}]}, "d": {"__proto__": 1}, "e": "x\\u0000"}');
  assert.deepEqual(jsonProblem(value), { path: ['a', 'b', 2, 'c'], kind: 'number' });
  assert.deepEqual(jsonProblem(JSON.parse('[{"__proto__": 1}, 1e400]')), { path: [0, '__proto__'], kind: 'prototype' });
});

test('a problem is said with its field, or, at the root or for depth, with what the value is', () => {
  const field = (json: string) => describeJsonProblem(jsonProblem(JSON.parse(json))!, { what: 'the record' });
  assert.deepEqual(field('{"data": {"metadata": {"__proto__": {}}}}'), {
    message: 'invalid field data.metadata.__proto__: the keys __proto__ and constructor.prototype are not accepted',
    field: 'data.metadata.__proto__',
  });
  assert.match(field('1e400').message, /^invalid field the record: the number is past the range/);
  let deep: unknown = 1;
  for (let i = 0; i <= MAX_JSON_DEPTH; i++) deep = [deep];
  assert.deepEqual(describeJsonProblem(jsonProblem(deep)!, { what: 'the body' }), {
    message: `the body nests deeper than ${MAX_JSON_DEPTH} levels`,
  });
});
