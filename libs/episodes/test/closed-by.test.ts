import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenMessage } from '@memstream/store';
import { closedBy } from '../src/closed-by.js';

const rules = { maxMessages: 4, maxTokens: 1_000, silenceMs: 3_600_000 };
const t0 = Date.parse('2026-01-10T09:00:00Z');
const minute = 60_000;

function messages(minutes: number[], chars = 20): OpenMessage[] {
  return minutes.map((m, i) => ({ seq: i + 1, message_id: `m${i + 1}`, created_at: new Date(t0 + m * minute), chars }));
}

const ranges = (closed: ReturnType<typeof closedBy>) => closed.map((e) => [e.startSeq, e.endSeq, e.reason]);

test('a message in the middle of a quiet conversation closes nothing', () => {
  assert.deepEqual(closedBy(messages([0, 1, 2]), 3, rules), []);
});

test('the message that reaches the message cap closes its own episode', () => {
  assert.deepEqual(ranges(closedBy(messages([0, 1, 2, 3]), 4, rules)), [[1, 4, 'message_cap']]);
  assert.deepEqual(closedBy(messages([0, 1, 2, 3]), 3, rules), [], 'the one before it closes nothing');
});

test('a message after a silence closes the episode before it, not its own', () => {
  assert.deepEqual(ranges(closedBy(messages([0, 1, 2, 200]), 4, rules)), [[1, 3, 'silence']]);
});

test('a message that would pass the token cap closes the episode before it', () => {
  const span = [...messages([0, 1], 1_600), ...messages([2], 2_000).map((m) => ({ ...m, seq: 3, message_id: 'm3' }))];
  assert.deepEqual(ranges(closedBy(span, 3, rules)), [[1, 2, 'token_cap']]);
});

test('what closed before the message is not counted as its doing', () => {
  // 1..4 closed at the cap (the extractor may not have stored it yet); 5 starts the next episode.
  assert.deepEqual(closedBy(messages([0, 1, 2, 3, 4]), 5, rules), []);
});

test('later messages do not change what a message closed', () => {
  assert.deepEqual(closedBy(messages([0, 1, 2, 200, 201, 202, 203]), 3, rules), []);
  assert.deepEqual(ranges(closedBy(messages([0, 1, 2, 200, 201]), 4, rules)), [[1, 3, 'silence']]);
});

test('a message missing from the span closes nothing', () => {
  assert.deepEqual(closedBy(messages([0, 1]), 7, rules), []);
});
