import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendMessages, foldKeywordCounts, keywordSearch, migrate } from '@memstream/store';
import { backends, log, random, chatMessage } from './search-fixtures.js';

/**
 * A word PostgreSQL keeps as one lexeme (up to 2,047 bytes) beside a conversation id near its
 * limit made a key of the conversations' counts per lexeme over the B-tree's ~2.7 KB: the fold that
 * counted it failed, every time, and left its whole window pending. Those counts are gone
 * (migration 0048); the sums over every conversation still key a lexeme, and leave such a word out.
 */
// Random, so that neither compresses: an index entry is measured after PostgreSQL compresses it.
const next = random(7);
const conversation = Array.from({ length: 255 }, () =>
  String.fromCodePoint(0x20000 + Math.floor(next() * 40_000)),
).join(''); // 1,020 bytes, the id rule's limit
const longWord = Array.from({ length: 2_040 }, () => 'bcdfghjklmnpqrstvwxz'[Math.floor(next() * 20)]).join('');

const message = (id: string, content: string) => chatMessage(conversation, id, content);

for (const [name, open] of backends) {
  test(`${name}: a message holding a 2 KB word is folded into the keyword counts with the messages around it`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    await appendMessages(store, [
      { message: message('m0', 'the quokka naps') },
      { message: message('m1', `the quokka ${longWord} swims`) },
      { message: message('m2', 'the wombat digs') },
    ]);

    assert.equal(await foldKeywordCounts(store, 100), 3, 'the fold takes all three');
    const pending = await store.query<{ n: string }>('SELECT count(*) AS n FROM search_keyword_pending');
    assert.equal(Number(pending.rows[0]!.n), 0, 'nothing is left pending');
    const counted = await store.query<{ items: number }>(
      `SELECT items FROM search_keyword_overall_frequencies WHERE lexeme = 'quokka'`,
    );
    assert.deepEqual(
      counted.rows.map((r) => Number(r.items)),
      [2],
      'the words beside it are counted',
    );
    const found = async (q: string, conversationId?: string) =>
      (await keywordSearch(store, q, { kinds: ['message'], conversationId }, 10)).map((h) => h.message_ids[0]).sort();
    assert.deepEqual(await found('quokka'), ['m0', 'm1'], 'and searched');
    assert.deepEqual(await found('quokka', conversation), ['m0', 'm1'], 'and searched in the conversation');
  });
}
