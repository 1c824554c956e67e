import { keywordVectorSql, messageSearchText, type NewMessage, type Queryable } from '@memstream/store';

/**
 * The search side of the store as the code before migration 0039 wrote it, for the migration
 * tests: today's writers write group_key, which the tables have only from 0039 on. Each statement
 * is the one the old writer ran, less what it wrote elsewhere; the schema's triggers counted the
 * words (a message's pending until search_keyword_fold, a memory's at once).
 */

/**
 * appendMessages: each message, its conversation and its keyword row, on a schema with 0038's keys
 * (the migration tests run 0035-0038 ahead of 0039).
 */
export async function appendBefore0039(q: Queryable, messages: readonly NewMessage[]): Promise<void> {
  await q.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[],
                            $8::text[], $9::text[], $10::text[]) WITH ORDINALITY
         AS t(c, mid, sid, sname, role, content, created, meta, src, body, ord)
     ),
     bumped AS (
       INSERT INTO conversations AS cv (id, source_api, next_seq, group_key)
       -- a stored conversation keeps its group (a fork's is its root's); a new one is its own
       SELECT c, min(src), count(*), COALESCE((SELECT x.group_key FROM conversations x WHERE x.id = c), c)
         FROM input GROUP BY c
       ON CONFLICT (id, group_key) DO UPDATE SET next_seq = cv.next_seq + EXCLUDED.next_seq
       RETURNING cv.id, cv.next_seq, cv.group_key
     ),
     numbered AS (
       SELECT i.*, b.group_key AS g,
              b.next_seq - count(*) OVER (PARTITION BY i.c) + row_number() OVER (PARTITION BY i.c ORDER BY i.ord) - 1 AS seq
       FROM input i JOIN bumped b ON b.id = i.c
     ),
     inserted AS (
       INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at,
                             metadata, source_api, group_key)
       SELECT c, seq, mid, sid, sname, role, content, created, meta::jsonb, src, g FROM numbered
       RETURNING id, conversation_id, message_id, sender_id, created_at, audience
     )
     INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv, audience)
     SELECT 'message', i.id::text, i.conversation_id, i.sender_id, n.body, i.created_at, ARRAY[i.message_id],
            ${keywordVectorSql('n.body')}, i.audience
     FROM inserted i JOIN numbered n ON n.c = i.conversation_id AND n.mid = i.message_id
     WHERE n.body <> ''`,
    [
      messages.map((m) => m.conversation_id),
      messages.map((m) => m.message_id),
      messages.map((m) => m.sender_id),
      messages.map((m) => m.sender_name),
      messages.map((m) => m.role),
      messages.map((m) => m.content),
      messages.map((m) => m.created_at ?? new Date()),
      messages.map((m) => JSON.stringify(m.metadata ?? {})),
      messages.map((m) => m.source_api),
      messages.map((m) => messageSearchText(m)),
    ],
  );
}

/** The fold of pending keyword counts, by the function 0039 drops. */
export async function foldBefore0039(q: Queryable): Promise<void> {
  while (((await q.query<{ n: number }>('SELECT search_keyword_fold(1000) AS n')).rows[0]?.n ?? 0) > 0);
}

/**
 * indexMemories: a memory (its episode first, once), its keyword row, upserted as a redelivery rewrites
 * it, and its vector, in its conversation's group (0038's keys tie the episode to it).
 */
export async function indexMemoryBefore0039(
  q: Queryable,
  m: { id: string; conversation: string; text: string; vector: string },
): Promise<void> {
  await q.query(
    `WITH episode AS (
       INSERT INTO episodes (conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason, group_key)
       SELECT $2, 0, 0, ARRAY['m0'], '2025-01-01', '2025-01-01', 'flush', g.k
         FROM (SELECT COALESCE((SELECT group_key FROM conversations WHERE id = $2), $2) AS k) g
        WHERE NOT EXISTS (SELECT 1 FROM episodic_memories WHERE id = $1)  -- a redelivery: stored
       RETURNING id, group_key
     )
     INSERT INTO episodic_memories (id, episode_id, conversation_id, version, content, occurred_at, ended_at, message_ids,
                                    extractor, group_key)
     SELECT $1, id, $2, 1, $3, '2025-01-01', '2025-01-01', ARRAY['m0'], 'test', group_key FROM episode`,
    [m.id, m.conversation, m.text],
  );
  await q.query(
    `WITH items AS (
       INSERT INTO search_items (kind, item_id, conversation_id, user_id, content, occurred_at, message_ids, tsv)
       SELECT 'episodic_memory', id, conversation_id, user_id, $2, occurred_at, message_ids, ${keywordVectorSql('$2')}
       FROM episodic_memories WHERE id = $1
       ON CONFLICT (kind, item_id) DO UPDATE SET content = EXCLUDED.content, tsv = EXCLUDED.tsv
       RETURNING item_id, conversation_id, user_id, occurred_at
     )
     INSERT INTO search_vectors (kind, item_id, conversation_id, user_id, occurred_at, embedding, embedding_model)
     SELECT 'episodic_memory', item_id, conversation_id, user_id, occurred_at, $3::vector, 'test-model' FROM items
     ON CONFLICT (kind, item_id) DO UPDATE SET embedding = EXCLUDED.embedding`,
    [m.id, m.text, m.vector],
  );
}
