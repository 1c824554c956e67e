import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYWORD_TEXT_MAX_CHARS, appendMessages, indexMemories, keywordSearch, migrate } from '@memstream/store';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';
import { backends, log, chatMessage } from './search-fixtures.js';

/**
 * Text whose tsvector is past PostgreSQL's 1 MiB: distinct hyphenated pairs of astral letters, each
 * pair three lexemes. 200,000 characters of it (well inside the broker's 1 MB a record) made a
 * tsvector of about 2 MB, so the statement storing it failed, every time, and took its batch along.
 */
function wordy(chars: number): string {
  const letter = (i: number) => String.fromCodePoint(0x20000 + i);
  // each pair is four characters (two letters, a hyphen, a space)
  const parts: string[] = [];
  for (let i = 0; parts.length * 4 < chars; i += 2) parts.push(`${letter(i)}-${letter(i + 1)} `);
  return parts.join('');
}

const message = (id: string, content: string) => chatMessage('g1', id, content);

for (const [name, open] of backends) {
  test(`${name}: a message with more words than a tsvector holds is stored whole, with the batch around it, and found by its opening words`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    const long = `quokkaword ${wordy(200_000)} wombatword`;

    const results = await appendMessages(store, [
      { message: message('m0', 'before it') },
      { message: message('m1', long), requestId: 'r1' },
      { message: message('m2', 'after it') },
    ]);

    assert.deepEqual(
      results.map((r) => [r.message.message_id, r.message.seq, r.duplicate]),
      [
        ['m0', 0, false],
        ['m1', 1, false],
        ['m2', 2, false],
      ],
    );
    const { rows } = await store.query<{ content: string }>(`SELECT content FROM messages WHERE message_id = 'm1'`);
    assert.equal(rows[0]?.content, long, 'the message is stored whole');
    const found = async (word: string) =>
      (await keywordSearch(store, word, { kinds: ['message'] }, 10)).map((h) => h.message_ids[0]);
    assert.deepEqual(await found('quokkaword'), ['m1'], 'its opening words are keyword-searchable');
    assert.deepEqual(await found('wombatword'), [], `words past ${KEYWORD_TEXT_MAX_CHARS} characters are not`);
  });

  test(`${name}: a memory with more words than a tsvector holds is indexed`, async (t) => {
    const store = await open(t);
    t.after(() => store.close());
    await migrate(store, log);
    await store.transaction((tx) => seedGroup(tx, { group: 'g1', marker: 'quokkaword', deletedAt: null }));

    const indexed = await indexMemories(store, 'test-model', [
      { memoryId: 'mem-g1', text: `lyrebirdword ${wordy(200_000)}`, embedding: [0.1, 0.2, 0.3] },
    ]);

    assert.equal(indexed, 1);
    const hits = await keywordSearch(store, 'lyrebirdword', { kinds: ['episodic_memory'] }, 10);
    assert.deepEqual(
      hits.map((h) => h.item_id),
      ['mem-g1'],
    );
  });
}
