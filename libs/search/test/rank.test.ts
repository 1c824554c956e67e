import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  intentOf,
  messageKey,
  rankByFeatures,
  rankFeatures,
  type MessageCandidate,
  type RankingParams,
} from '@memstream/search';
import type { SearchHit } from '@memstream/store';

const AT = new Date('2023-05-08T13:56:00Z');
const NONE: RankingParams = { vectorWeight: 0.5, context: 0, memory: 0, participant: 0, date: 0, when: 0 };

function turn(
  id: string,
  sender: string,
  content: string,
  scores: { keyword?: number; vector?: number },
  around: { prev?: string; next?: string } = {},
): MessageCandidate {
  const hit: SearchHit = {
    kind: 'message',
    item_id: id,
    conversation_id: 'g',
    user_id: sender,
    content: `${sender}: ${content}`,
    occurred_at: AT,
    message_ids: [id],
    score: 0,
  };
  return {
    key: messageKey('g', id),
    hit,
    sender,
    ...scores,
    prev: around.prev && messageKey('g', around.prev),
    next: around.next && messageKey('g', around.next),
  };
}
const order = (hits: SearchHit[]) => hits.map((h) => h.item_id);

test('a reply the methods missed is ranked by the turn it answers, once context counts', () => {
  const turns = [
    turn('q', 'Ann', 'Did you finally adopt the greyhound?', { keyword: 0.9, vector: 0.8 }, { next: 'a' }),
    turn('a', 'Bob', 'Yes, last Tuesday!', {}, { prev: 'q' }),
    turn('x', 'Bob', 'The weather is nice', { keyword: 0.2, vector: 0.3 }),
    turn('z', 'Ann', 'Hello', { keyword: 0.1, vector: 0.1 }),
  ];
  const f = rankFeatures(intentOf('When did Bob adopt the greyhound?', ['Ann', 'Bob'], AT.getTime()), turns, []);
  assert.deepEqual(order(rankByFeatures(f, NONE, false)), ['q', 'x', 'a', 'z']);
  assert.deepEqual(order(rankByFeatures(f, { ...NONE, context: 0.5 }, false)), ['q', 'a', 'x', 'z']);
  for (const h of rankByFeatures(f, { ...NONE, context: 0.5, participant: 0.2, when: 0.1 }, false))
    assert.ok(h.score >= 0 && h.score <= 1);
});

test('a memory lends its score to the turns it was made from, and is returned only when asked for', () => {
  const turns = [
    turn('m1', 'Ann', 'ok', { keyword: 0.1, vector: 0.1 }),
    turn('m2', 'Ann', 'fine', { keyword: 0.2, vector: 0.2 }),
    turn('z', 'Bob', 'hi', { keyword: 0.05, vector: 0.05 }),
  ];
  const memory = {
    hit: { ...turns[0]!.hit, kind: 'episodic_memory' as const, item_id: 'mem', message_ids: ['m1'] },
    keyword: 0.9,
    vector: 0.9,
    sources: [messageKey('g', 'm1')],
  };
  const f = rankFeatures(intentOf('what happened', [], 0), turns, [memory]);
  assert.deepEqual(order(rankByFeatures(f, NONE, false)), ['m2', 'm1', 'z']);
  assert.deepEqual(order(rankByFeatures(f, { ...NONE, memory: 1 }, false)), ['m1', 'm2', 'z']);
  assert.ok(order(rankByFeatures(f, NONE, true)).includes('mem'));
});

test('the participant a question names, and the day it names, lift that turn', () => {
  const turns = [
    turn('b', 'Bob', 'I painted a sunrise', { keyword: 0.5, vector: 0.5 }),
    turn('c', 'Caroline', 'I painted a lake', { keyword: 0.5, vector: 0.45 }),
    turn('z', 'Bob', 'Nice weather', { keyword: 0.1, vector: 0.1 }),
  ];
  const named = rankFeatures(intentOf('What did Caroline paint?', ['Bob', 'Caroline'], 0), turns, []);
  assert.deepEqual(order(rankByFeatures(named, NONE, false)), ['b', 'c', 'z']);
  assert.deepEqual(order(rankByFeatures(named, { ...NONE, participant: 0.2 }, false)), ['c', 'b', 'z']);
  // naming everyone says nothing about whom
  const both = rankFeatures(intentOf('What did Caroline and Bob paint?', ['Bob', 'Caroline'], 0), turns, []);
  assert.deepEqual(order(rankByFeatures(both, { ...NONE, participant: 0.2 }, false)), ['b', 'c', 'z']);
  const other = { ...turns[1]!, hit: { ...turns[1]!.hit, occurred_at: new Date('2023-06-02T10:00:00Z') } };
  const dated = rankFeatures(intentOf('What was painted in June 2023?', [], 0), [turns[0]!, other, turns[2]!], []);
  assert.deepEqual(order(rankByFeatures(dated, { ...NONE, date: 0.2 }, false)), ['c', 'b', 'z']);
});
