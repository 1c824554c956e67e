import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locomoToGroupChat } from '@memstream/cli';
import { exactVectorList, nearest, turnTexts } from '../bench/lib/contextual-lever.js';
import type { ApiHit } from '../bench/lib/locomo-turns.js';

// A made-up two-session conversation in LoCoMo's shape.
const sample = {
  sample_id: 's1',
  conversation: {
    speaker_a: 'Ana',
    speaker_b: 'Ben',
    session_1_date_time: '1:56 pm on 8 May, 2023',
    session_1: [
      { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a puppy last week.' },
      { speaker: 'Ben', dia_id: 'D1:2', text: 'Congrats! What breed? ' },
    ],
    session_2_date_time: '10:00 am on 20 May, 2023',
    session_2: [{ speaker: 'Ben', dia_id: 'D2:1', text: 'How is the beagle?' }],
  },
};
const { documents } = locomoToGroupChat([sample]);
const texts = turnTexts(documents, () => 's1');

test('a turn is embedded after the turn before it in its session, and alone when it opens a session', () => {
  assert.deepEqual(
    texts.map((t) => [t.id, t.alone, t.withPrevious]),
    [
      ['s1:D1:1', 'Ana: I adopted a puppy last week.', 'Ana: I adopted a puppy last week.'],
      ['s1:D1:2', 'Ben: Congrats! What breed?', 'Ana: I adopted a puppy last week.\nBen: Congrats! What breed?'],
      ['s1:D2:1', 'Ben: How is the beagle?', 'Ben: How is the beagle?'],
    ],
  );
});

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
};

test('nearest ranks by cosine, best first, and keeps k', () => {
  const vectors = [unit(1, 0), unit(0, 1), unit(1, 1)];
  const best = nearest(unit(1, 0.2), vectors, 2);
  assert.deepEqual(
    best.map((b) => b.index),
    [0, 2],
  );
  assert.ok(best[0]!.score > best[1]!.score);
});

test('the exact vector list holds only the asked conversation, then the memories the API returned', () => {
  const other = { ...texts[0]!, id: 's2:D1:1', group: 's2' };
  const memory: ApiHit = {
    id: 'm1',
    memory_type: 'episodic_memory',
    content: 'Ana adopted a beagle puppy',
    score: 0.5,
    group_id: 's1',
    user_id: null,
    timestamp: '2023-05-08T13:56:00Z',
    message_ids: ['s1:D1:1'],
  };
  // the other conversation's turn is the nearest of all, and must not appear
  const vectors = [unit(0, 1), unit(1, 1), unit(1, 0), unit(1, 0)];
  const list = exactVectorList('s1', unit(1, 0), [...texts, other], vectors, [memory], 2);
  assert.deepEqual(
    list.map((h) => [h.memory_type, h.id]),
    [
      ['message', 's1:D2:1'],
      ['message', 's1:D1:2'],
      ['episodic_memory', 'm1'],
    ],
  );
});
