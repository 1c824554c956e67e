import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { PgStore, forgetMessages, indexMessages, migrate, turnContext } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

test("a turn's context is read from the messages that exist: a deleted turn is no one's neighbour, and a turn a day later is not either", async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 2,
    statementTimeoutMs: 60_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const lines = [
    ['t0', 'ann', 'Ann', 'Did you finally adopt the greyhound?', '2023-05-08T13:56:00Z'],
    ['t1', 'bob', 'Bob', 'Yes! Her name is Pixel.', '2023-05-08T13:57:00Z'],
    ['t2', 'ann', 'Ann', 'Lovely, send a photo.', '2023-05-08T13:58:00Z'],
    ['t3', 'bob', 'Bob', 'Good morning!', '2023-05-09T09:00:00Z'],
  ] as const;
  await store.query(
    `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ('g', 'evermemos', $1, 'g')`,
    [lines.length],
  );
  await store.query(
    `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
     SELECT 'g', n - 1, mid, sid, sname, 'user', body, at::timestamptz, 'evermemos', 'g' FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS t(mid, sid, sname, body, at, n)`,
    [0, 1, 2, 3, 4].map((c) => lines.map((l) => l[c])),
  );
  await indexMessages(
    store,
    'test/none',
    lines.map(([id, , name, body]) => ({
      groupKey: 'g',
      conversationId: 'g',
      messageId: id,
      text: `${name}: ${body}`,
      embedding: [1, 0],
    })),
  );
  const itemOf = async (id: string) =>
    (await store.query<{ item_id: string }>(`SELECT item_id FROM search_items WHERE message_ids = ARRAY[$1]`, [id]))
      .rows[0]!.item_id;
  const [i0, i2, i3] = [await itemOf('t0'), await itemOf('t2'), await itemOf('t3')];
  const filters = { conversationId: 'g', kinds: ['message'] as const };

  const before = await turnContext(store, [i0, i2, i3], filters);
  const at = (id: string, ctx: typeof before) => ctx.turns.find((c) => c.messageId === id)!;
  assert.deepEqual(
    [at('t0', before).prevMessageId, at('t0', before).nextMessageId, at('t0', before).senderName],
    [null, 't1', 'Ann'],
  );
  assert.deepEqual(
    [at('t2', before).prevMessageId, at('t2', before).nextMessageId],
    ['t1', null],
    "t3 comes a day later: not t2's context",
  );
  assert.equal(at('t3', before).prevMessageId, null);
  // t1 is nobody's candidate here, so it comes back as a neighbour row, with its sender
  assert.deepEqual(
    before.neighbours.map((n) => [n.hit.message_ids[0], n.senderName]),
    [['t1', 'Bob']],
  );

  await forgetMessages(store, { conversationId: 'g', messageId: 't1' });
  const after = await turnContext(store, [i0, i2], filters);
  assert.equal(at('t0', after).nextMessageId, 't2');
  assert.equal(at('t2', after).prevMessageId, 't0');
  assert.deepEqual(after.neighbours, []);
  // nothing of t1 is left in any search row: no row matches its words
  const { rows } = await store.query(`SELECT item_id FROM search_items WHERE tsv @@ to_tsquery('english', 'pixel')`);
  assert.deepEqual(rows, []);
});
