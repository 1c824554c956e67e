import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import {
  appendMessage,
  insertEpisodes,
  migrate,
  openPglite,
  openSpan,
  PgStore,
  spanThrough,
  type Store,
} from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { closeEpisodes } from '../src/boundaries.js';
import { closedBy } from '../src/closed-by.js';

const log = createLogger({ service: 'test', level: 'silent' });
const rules = { maxMessages: 5, maxTokens: 40, silenceMs: 10_000 };
const limit = 2 * rules.maxMessages + 2;

/** A fixed pseudo-random sequence, so a failure names the same conversation every run. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const backends: Array<[string, (t: TestContext) => Promise<Store>]> = [
  ['PGlite', async () => openPglite()],
  [
    'native PostgreSQL',
    async (t) =>
      new PgStore({ connectionString: await freshDatabase(t), maxConnections: 2, statementTimeoutMs: 60_000, log }),
  ],
];

for (const [backend, open] of backends)
  test(`${backend}: a span with caps comes back whole whenever the message closes an episode, and empty for most that do not`, async (t) => {
    const store = await open(t);
    try {
      await migrate(store, log);
      const random = lcg(29);
      let at = Date.parse('2025-01-15T10:00:00Z');
      let closing = 0;
      let skipped = 0;
      for (let seq = 0; seq < 200; seq++) {
        // Mostly short steps; now and then a silence just under, at, or just past the rule's limit,
        // and now and then a message older than the one before it (an import out of order).
        const pick = random();
        const step =
          pick < 0.06
            ? rules.silenceMs + Math.floor(random() * 3) - 1
            : pick < 0.1
              ? rules.silenceMs * 3
              : pick < 0.14
                ? -2_000
                : Math.floor(random() * 3_000);
        at += step;
        await appendMessage(store, {
          conversation_id: 'c',
          message_id: `m${seq}`,
          sender_id: 'u',
          sender_name: 'u',
          role: 'user',
          content: 'x'.repeat(1 + 4 * Math.floor(random() * 16)), // a remainder of 1: a token that rounding down would miss
          created_at: new Date(at),
          refer_list: [],
          metadata: {},
          source_api: 'evermemos',
        });
        const full = await spanThrough(store, 'c', seq, limit);
        const gated = await spanThrough(store, 'c', seq, limit, rules);
        if (closedBy(full, seq, rules).length > 0) {
          closing++;
          assert.deepEqual(gated, full, `message ${seq} closes an episode: the gated span must be the whole span`);
        } else if (gated.length === 0) skipped++;
        else assert.deepEqual(gated, full, `message ${seq}: a gated span is empty or whole`);
        // The extractor keeps up only now and then, so spans start both at and before the last episode.
        if (random() < 0.4) {
          const { closed } = closeEpisodes(await openSpan(store, 'c', 1_000), rules);
          await insertEpisodes(store, 'c', closed);
        }
      }
      assert.ok(closing > 20, `the conversation closes episodes (${closing})`);
      assert.ok(skipped > 60, `most spans that close nothing come back empty (${skipped})`);
    } finally {
      await store.close();
    }
  });
