import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { createHashEmbedder } from '@memstream/embedding';
import { createLogger } from '@memstream/logging';
import { appendMessages, foldKeywordCounts, migrate, PgStore } from '@memstream/store';
import { checkInvariants, growTo, hnswBuildMemory, prepareLoad, RAW_TABLE } from '../bench/lib/scale-load.js';
import { loadTurns } from '../bench/lib/scale-workload.js';
import { freshDatabase } from './helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

// Rows of one conversation prefix, with the prefix taken off, so two copies of the same messages compare equal.
const messageRows = (prefix: string) => `
  SELECT substr(conversation_id, ${prefix.length + 1}) AS c, seq, message_id, sender_id, sender_name, role, content,
         created_at, refer_list, metadata, source_api, audience
    FROM messages WHERE starts_with(conversation_id, '${prefix}')`;
const searchRows = (prefix: string) => `
  SELECT substr(s.conversation_id, ${prefix.length + 1}) AS c, s.kind, s.user_id, s.content, s.occurred_at, s.message_ids, s.tsv, s.audience
    FROM search_items s WHERE starts_with(s.conversation_id, '${prefix}')`;
const counterRows = (prefix: string) => `
  SELECT substr(id, ${prefix.length + 1}) AS c, next_seq, source_api FROM conversations WHERE starts_with(id, '${prefix}')`;
const totalRows = (prefix: string) => `
  SELECT substr(conversation_id, ${prefix.length + 1}) AS c, kind, audience, items, lexemes
    FROM search_keyword_totals WHERE starts_with(conversation_id, '${prefix}')`;

test('the bulk load writes what the append statement writes for the same messages, and numbering goes on after it', async (t) => {
  const url = await freshDatabase(t);
  const store = new PgStore({ connectionString: url, maxConnections: 2, statementTimeoutMs: 60_000, log });
  t.after(() => store.close());
  await migrate(store, log);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await bulkLoadMatchesAppend(client, store);
  } finally {
    await client.end(); // before the database is dropped under it
  }
});

test('an HNSW build gets memory for its whole graph, up to 60% of the machine', () => {
  const gib = 2 ** 30;
  // a million 384-dimension vectors: about 2.3 KB each in the graph, a tenth more kept
  const million = hnswBuildMemory(1_000_000, 384, 24 * gib);
  assert.ok(million.fits);
  assert.ok(million.mib > 2300 && million.mib < 2500, `${million.mib} MiB`);
  // ten million do not fit in 60% of 24 GiB: the build is given that much and says it goes on disk
  const tenMillion = hnswBuildMemory(10_000_000, 384, 24 * gib);
  assert.equal(tenMillion.fits, false);
  assert.equal(tenMillion.mib, Math.floor((24 * gib * 0.6) / 2 ** 20));
  assert.equal(hnswBuildMemory(0, 384, 24 * gib).mib, 64);
});

async function bulkLoadMatchesAppend(client: pg.Client, store: PgStore): Promise<void> {
  const hash = createHashEmbedder({ dimension: 16 });
  await prepareLoad(client, loadTurns(undefined), hash);
  // Chunks of 25 end inside conversations of 10: a conversation's counter is moved by two chunks.
  const load = await growTo(
    client,
    { from: 0, to: 60, perConversation: 10, chunk: 25, model: hash.model, dimension: 16 },
    () => {},
  );
  assert.equal(load.messages, 60);
  assert.equal(load.hnsw_build.vectors, 60);
  assert.equal(load.hnsw_build.on_disk, false);
  const invariants = await checkInvariants(client);
  assert.deepEqual(invariants, {
    gapped_conversations: 0,
    messages: 60,
    search_rows: 60,
    vector_rows: 60,
    keyword_pending: 0,
    ok: true,
  });
  const { rows: raw } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${RAW_TABLE}`);
  assert.equal(raw[0]!.n, 60, 'the raw baseline table grows with messages');

  // The same messages through the converter's append statement, into conversations of their own.
  const { rows: loaded } = await client.query<{
    conversation_id: string;
    message_id: string;
    sender_id: string;
    sender_name: string;
    content: string;
    created_at: Date;
  }>('SELECT conversation_id, message_id, sender_id, sender_name, content, created_at FROM messages ORDER BY id');
  await appendMessages(
    store,
    loaded.map((m) => ({
      message: {
        ...m,
        conversation_id: `real-${m.conversation_id}`,
        role: 'user' as const,
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
  while ((await foldKeywordCounts(store, 1000)) > 0);

  for (const [what, rows] of [
    ['messages', messageRows],
    ['search rows', searchRows],
    ['conversation counters', counterRows],
    ['keyword totals', totalRows],
  ] as const) {
    const { rows: differ } = await client.query(
      `(${rows('real-scale-')} EXCEPT ${rows('scale-')}) UNION ALL (${rows('scale-')} EXCEPT ${rows('real-scale-')})`,
    );
    assert.deepEqual(differ, [], `${what} differ between the bulk load and the append statement`);
  }

  // A write after the load is numbered after the loaded messages.
  const [next] = await appendMessages(store, [
    {
      message: {
        conversation_id: 'scale-g2',
        message_id: 'after-load',
        sender_id: 'a0',
        sender_name: 'a0',
        role: 'user',
        content: 'and one more thing',
        created_at: new Date(),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    },
  ]);
  assert.equal(next!.message.seq, 10);
  assert.equal((await checkInvariants(client)).gapped_conversations, 0);
}
