import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenMessage } from '@memstream/store';
import { closeEpisodes, estimateTokens } from '../src/boundaries.js';

const rules = { maxMessages: 50, maxTokens: 8_192, silenceMs: 4 * 3_600_000 };
const t0 = Date.parse('2025-01-15T10:00:00Z');

function span(times: number[], chars = 40): OpenMessage[] {
  return times.map((at, i) => ({ seq: i, message_id: `m${i}`, created_at: new Date(t0 + at), chars }));
}

test('an open span under every cap stays open', () => {
  const { closed, open } = closeEpisodes(span([0, 60_000, 120_000]), rules);
  assert.equal(closed.length, 0);
  assert.deepEqual(
    open.map((m) => m.seq),
    [0, 1, 2],
  );
});

test('the message cap closes an episode as it reaches the cap', () => {
  const { closed, open } = closeEpisodes(span([0, 1, 2, 3, 4, 5, 6]), { ...rules, maxMessages: 3 });
  assert.deepEqual(
    closed.map((e) => [e.startSeq, e.endSeq, e.reason]),
    [
      [0, 2, 'message_cap'],
      [3, 5, 'message_cap'],
    ],
  );
  assert.deepEqual(closed[0]!.messageIds, ['m0', 'm1', 'm2']);
  assert.deepEqual(
    open.map((m) => m.seq),
    [6],
  );
});

test('a long silence closes the episode before the message after it', () => {
  const hour = 3_600_000;
  const { closed, open } = closeEpisodes(span([0, hour, 6 * hour, 6 * hour + 1]), rules);
  assert.deepEqual(
    closed.map((e) => [e.startSeq, e.endSeq, e.reason]),
    [[0, 1, 'silence']],
  );
  assert.equal(closed[0]!.startTime.getTime(), t0);
  assert.equal(closed[0]!.endTime.getTime(), t0 + hour);
  assert.deepEqual(
    open.map((m) => m.seq),
    [2, 3],
  );
});

test('a message dated earlier than the one before it (an import out of order) is not a gap', () => {
  const hour = 3_600_000;
  const { closed } = closeEpisodes(span([5 * hour, 0, 5 * hour + 1]), rules);
  assert.equal(closed.length, 0);
});

test('the token cap closes before the message that would pass it; a message over the cap stands alone', () => {
  const msgs: OpenMessage[] = [400, 400, 400, 4_000, 40].map((chars, i) => ({
    seq: i,
    message_id: `m${i}`,
    created_at: new Date(t0 + i),
    chars,
  }));
  // 100 tokens each for the first three, 1,000 for the fourth; cap 250.
  const { closed, open } = closeEpisodes(msgs, { ...rules, maxTokens: 250 });
  assert.deepEqual(
    closed.map((e) => [e.startSeq, e.endSeq, e.reason]),
    [
      [0, 1, 'token_cap'],
      [2, 2, 'token_cap'],
      [3, 3, 'token_cap'],
    ],
  );
  assert.deepEqual(
    open.map((m) => m.seq),
    [4],
  );
  assert.equal(estimateTokens(400), 100);
});
