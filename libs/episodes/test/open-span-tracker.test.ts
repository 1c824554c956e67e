import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenMessage } from '@memstream/store';
import { closedBy } from '../src/closed-by.js';
import { OpenSpanTracker } from '../src/open-span-tracker.js';

const rules = { maxMessages: 5, maxTokens: 60, silenceMs: 3_600_000 };
const t0 = Date.parse('2026-01-10T09:00:00Z');

/** A small deterministic generator, so a failure names a seed that replays it. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Messages with minute-apart times, now and then a silence or a step back in time, and lengths up to the token cap. */
function conversation(seed: number, n: number): OpenMessage[] {
  const next = random(seed);
  let at = t0;
  return Array.from({ length: n }, (_, i) => {
    const r = next();
    at += r < 0.08 ? 5 * 3_600_000 : r < 0.15 ? -20 * 60_000 : 60_000;
    return { seq: i + 1, message_id: `m${i + 1}`, created_at: new Date(at), chars: Math.floor(next() * 120) };
  });
}

const tracked = (m: OpenMessage) => ({ seq: m.seq, createdAt: m.created_at.getTime(), chars: m.chars });

test('the tracker answers "closes nothing" only where the rules over the whole span close nothing', () => {
  let skipped = 0;
  let total = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const span = conversation(seed, 60);
    const spans = new OpenSpanTracker(rules);
    for (const m of span) {
      total++;
      const closing = closedBy(span, m.seq, rules);
      if (spans.closesNothing('g', tracked(m))) {
        skipped++;
        assert.deepEqual(closing, [], `seed ${seed}: message ${m.seq} closes ${JSON.stringify(closing)}`);
      } else {
        spans.learn('g', m.seq, span); // what the write does on an unknown answer: read the span and learn
      }
    }
  }
  // ...and it does save the read for most messages (a tracker that never answers would pass the above)
  assert.ok(skipped > total * 0.6, `${skipped} of ${total} answered without a read`);
});

test('a message after one the tracker did not see, or after a flush or deletion here, is left to the store', () => {
  const span = conversation(7, 4).map((m) => ({ ...m, chars: 8 }));
  const spans = new OpenSpanTracker(rules);
  assert.equal(spans.closesNothing('g', tracked(span[0]!)), undefined, 'nothing known yet');
  spans.learn('g', 1, span);
  assert.equal(spans.closesNothing('g', tracked(span[2]!)), undefined, 'message 2 was written elsewhere');
  spans.learn('g', 3, span);
  spans.clear();
  assert.equal(spans.closesNothing('g', tracked(span[3]!)), undefined, 'forgotten after a flush');
  assert.equal(spans.closesNothing('other', tracked(span[1]!)), undefined, 'another conversation');
});

test('the tracker keeps at most its capacity of conversations, dropping the one used longest ago', () => {
  const span = conversation(3, 2).map((m) => ({ ...m, chars: 4, created_at: new Date(t0 + m.seq * 60_000) }));
  const spans = new OpenSpanTracker(rules, 2);
  spans.learn('a', 1, span);
  spans.learn('b', 1, span);
  spans.learn('c', 1, span);
  assert.equal(spans.closesNothing('a', tracked(span[1]!)), undefined, 'a was dropped');
  assert.equal(spans.closesNothing('c', tracked(span[1]!)), true);
});
