import type pg from 'pg';

/** What the raw statements removed or rewrote, by table. */
export type RawCounts = Record<string, number>;

/**
 * bench:erasure's baseline: the rows an erasure removes for a person seeded by erasure-seed.ts,
 * removed by plain set-based SQL in one transaction, with nothing around it (no job, no lease, no
 * batches, no per-conversation locks, no transport step, no audit). The same rows as the job: the
 * conversations they own, whole (messages, search rows, keyword statistics, memories, episodes,
 * summaries, memberships); their messages in the groups, with the memories of the episodes that held
 * them and those groups' summaries; the episodes that keep other messages are rewritten without
 * theirs and reopened, as the job does; their entry in group metadata is rewritten out.
 */
export async function rawErase(db: pg.Client, userId: string): Promise<{ elapsedMs: number; counts: RawCounts }> {
  const counts: RawCounts = {};
  const run = async (label: string, sql: string) => {
    const { rowCount } = await db.query(sql, sql.includes('$1') ? [userId] : []);
    counts[label] = (counts[label] ?? 0) + (rowCount ?? 0);
  };
  const started = performance.now();
  await db.query('BEGIN');
  try {
    await db.query(
      `CREATE TEMP TABLE raw_owned ON COMMIT DROP AS
       SELECT group_id AS id FROM conversation_memberships WHERE user_id = $1 AND access_level = 'owner'`,
      [userId],
    );
    await run('messages', 'DELETE FROM messages WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await run('searchRows', 'DELETE FROM search_items WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await db.query('DELETE FROM search_keyword_totals WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await run('episodicMemories', 'DELETE FROM episodic_memories WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await run('episodes', 'DELETE FROM episodes WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await run('summaries', 'DELETE FROM memory WHERE conversation_id IN (SELECT id FROM raw_owned)');
    await run('memberships', 'DELETE FROM conversation_memberships WHERE group_id IN (SELECT id FROM raw_owned)');
    await db.query('DELETE FROM person_groups WHERE group_id IN (SELECT id FROM raw_owned)');
    await run('conversations', 'DELETE FROM conversations WHERE id IN (SELECT id FROM raw_owned)');

    // Their messages in other people's groups, and what was made of them.
    await db.query('CREATE TEMP TABLE raw_sent (id bigint, conversation_id text, message_id text) ON COMMIT DROP');
    await db.query(
      `WITH gone AS (DELETE FROM messages WHERE sender_id = $1 RETURNING id, conversation_id, message_id)
       INSERT INTO raw_sent SELECT * FROM gone`,
      [userId],
    );
    counts['messages'] =
      (counts['messages'] ?? 0) + Number((await db.query('SELECT count(*) AS n FROM raw_sent')).rows[0].n);
    await run(
      'searchRows',
      `DELETE FROM search_items WHERE kind = 'message' AND item_id IN (SELECT id::text FROM raw_sent)`,
    );
    await db.query(
      `CREATE TEMP TABLE raw_episodes ON COMMIT DROP AS
       SELECT e.id, ARRAY(SELECT x FROM unnest(e.message_ids) WITH ORDINALITY AS u(x, o)
                          WHERE NOT EXISTS (SELECT 1 FROM raw_sent s WHERE s.conversation_id = e.conversation_id AND s.message_id = u.x)
                          ORDER BY o) AS remaining
       FROM episodes e WHERE e.conversation_id IN (SELECT DISTINCT conversation_id FROM raw_sent)
         AND EXISTS (SELECT 1 FROM raw_sent s WHERE s.conversation_id = e.conversation_id AND s.message_id = ANY(e.message_ids))`,
    );
    await db.query('CREATE TEMP TABLE raw_memories (id text) ON COMMIT DROP');
    await db.query(
      `WITH gone AS (DELETE FROM episodic_memories WHERE episode_id IN (SELECT id FROM raw_episodes) RETURNING id)
       INSERT INTO raw_memories SELECT * FROM gone`,
    );
    counts['episodicMemories'] =
      (counts['episodicMemories'] ?? 0) + Number((await db.query('SELECT count(*) AS n FROM raw_memories')).rows[0].n);
    await run(
      'searchRows',
      `DELETE FROM search_items WHERE kind = 'episodic_memory' AND item_id IN (SELECT id FROM raw_memories)`,
    );
    await run(
      'episodes',
      `DELETE FROM episodes WHERE id IN (SELECT id FROM raw_episodes WHERE cardinality(remaining) = 0)`,
    );
    await run(
      'episodesRebuilt',
      `UPDATE episodes e SET message_ids = r.remaining, version = e.version + 1, status = 'pending', attempts = 0,
         next_attempt_at = now(), updated_at = now()
       FROM raw_episodes r WHERE e.id = r.id AND cardinality(r.remaining) > 0`,
    );
    await run(
      'summaries',
      `DELETE FROM memory WHERE conversation_id IN (SELECT DISTINCT conversation_id FROM raw_sent)`,
    );

    // What names them outside messages.
    await run('episodicMemories', 'DELETE FROM episodic_memories WHERE user_id = $1');
    await run(
      'groupMetadataRewritten',
      'UPDATE conversation_meta SET user_details = user_details - $1 WHERE user_details ? $1',
    );
    await run('memberships', 'DELETE FROM conversation_memberships WHERE user_id = $1');
    await db.query('DELETE FROM person_groups WHERE user_id = $1', [userId]);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK');
    throw err;
  }
  return { elapsedMs: performance.now() - started, counts };
}
