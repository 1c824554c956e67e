import { insertSearchRows, type Queryable, setMembership } from '@memstream/store';

/**
 * One conversation group with a row in every table a family writes, each holding `marker` where
 * it can hold text: a memory-service root and its fork, messages, search rows (vector and keyword),
 * an episode with a memory, a rolling summary, a KAOS session with an event, ARK session and
 * chunks, memberships, a pending transfer, EverMemOS metadata and a request outcome.
 */
export async function seedGroup(
  q: Queryable,
  o: { group: string; marker: string; deletedAt: Date | null; owner?: string },
): Promise<void> {
  const { group, marker } = o;
  const fork = `${group}-fork`;
  const at = new Date(Date.UTC(2025, 0, 1));
  await q.query(
    `INSERT INTO conversations (id, source_api, group_id, title, deleted_at, next_seq, group_key) VALUES
       ($1, 'memory-service', NULL, $3, $4, 2, $1), ($2, 'memory-service', $1, $3, $4, 1, $1)`,
    [group, fork, `title ${marker}`, o.deletedAt],
  );
  await q.query(
    `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, stored_at, source_api, metadata, group_key) VALUES
       ($1, 0, 'm0', 'u1', 'User One', 'user', $3, $4, $4, 'memory-service', '{}', $1),
       ($1, 1, 'm1', 'agent', 'Agent', 'assistant', $3, $4, $4, 'memory-service', jsonb_build_object('ms', jsonb_build_object('channel', 'memory', 'visibility', 'agent', 'client_id', 'bot', 'note', $3::text)), $1),
       ($2, 0, 'f0', 'u1', 'User One', 'user', $3, $4, $4, 'memory-service', '{}', $1)`,
    [group, fork, `words of ${marker}`, at],
  );
  const said = await q.query<{
    id: string;
    conversation_id: string;
    sender_id: string;
    content: string;
    created_at: Date;
    message_id: string;
    audience: string | null;
  }>(
    `SELECT id::text, conversation_id, sender_id, content, created_at, message_id, audience FROM messages
     WHERE conversation_id IN ($1, $2)`,
    [group, fork],
  );
  await insertSearchRows(
    q,
    said.rows.map((m) => ({
      groupKey: group,
      kind: 'message',
      itemId: m.id,
      conversationId: m.conversation_id,
      userId: m.sender_id,
      content: m.content,
      occurredAt: m.created_at,
      messageIds: [m.message_id],
      audience: m.audience,
    })),
  );
  await q.query(
    `INSERT INTO search_vectors (group_key, kind, item_id, conversation_id, user_id, occurred_at, audience, embedding, embedding_model)
     SELECT group_key, kind, item_id, conversation_id, user_id, occurred_at, audience, '[0.1,0.2,0.3]'::vector, 'test-model'
       FROM search_items WHERE group_key = $1`,
    [group],
  );
  const episode = await q.query<{ id: string }>(
    `INSERT INTO episodes (conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason, group_key)
     VALUES ($1, 0, 1, ARRAY['m0', 'm1'], $2, $2, 'flush', $1) RETURNING id`,
    [group, at],
  );
  await q.query(
    `INSERT INTO episodic_memories (id, episode_id, conversation_id, version, content, occurred_at, ended_at, message_ids, extractor, group_key)
     VALUES ($1, $2, $3, 1, $4, $5, $5, ARRAY['m0'], 'test', $3)`,
    [`mem-${group}`, episode.rows[0]!.id, group, `memory of ${marker}`, at],
  );
  await insertSearchRows(q, [
    {
      groupKey: group,
      kind: 'episodic_memory',
      itemId: `mem-${group}`,
      conversationId: group,
      userId: null,
      content: `memory of ${marker}`,
      occurredAt: at,
      messageIds: ['m0'],
    },
  ]);
  const first = await q.query<{ memory_id: string }>(
    `INSERT INTO memory (conversation_id, memory_text, start_sequence, end_sequence, group_key) VALUES ($1, $2, 0, 0, $1) RETURNING memory_id`,
    [group, `summary of ${marker}`],
  );
  await q.query(
    `INSERT INTO memory (conversation_id, memory_text, start_sequence, end_sequence, base_memory_id, group_key) VALUES ($1, $2, 0, 1, $3, $1)`,
    [group, `newer summary of ${marker}`, first.rows[0]!.memory_id],
  );
  // on the root: a KAOS conversation is its own group, and its session's key to it says so (0038)
  await q.query(
    `INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id) VALUES ('agent-x', $1, $2, 'app', 'u1')`,
    [`s-${group}`, group],
  );
  await q.query(`INSERT INTO kaos_session_names (agent, session_id, conversation_id) VALUES ('agent-x', $1, $2)`, [
    `s-${group}`,
    fork,
  ]);
  await q.query(
    `INSERT INTO kaos_events (conversation_id, seq, event_id, occurred_at, event_type, content, metadata)
     VALUES ($1, 0, 'e0', $2, 'user_message', json_build_object('text', $3::text), '{}')`,
    [group, at, marker],
  );
  await q.query(`INSERT INTO ark_sessions (session_id) VALUES ($1)`, [group]);
  await q.query(`INSERT INTO stream_chunks (session_id, chunk) VALUES ($1, jsonb_build_object('text', $2::text))`, [
    group,
    marker,
  ]);
  await setMembership(q, group, o.owner ?? 'u1', 'owner');
  await setMembership(q, group, 'u2', 'reader');
  await q.query(
    `INSERT INTO conversation_ownership_transfers (id, group_id, conversation_id, from_user_id, to_user_id, status)
     VALUES ($1, $2, $2, $3, 'u2', 'pending')`,
    [`t-${group}`, group, o.owner ?? 'u1'],
  );
  await q.query(
    `INSERT INTO conversation_meta (group_id, version, scene, scene_desc, name, description, conversation_created_at, default_timezone)
     VALUES ($1, '1', 'group_chat', '{}', $2, $2, $3, 'UTC')`,
    [group, `meta ${marker}`, at],
  );
  await q.query(
    `INSERT INTO request_outcomes (request_id, kind, status, group_id, message_id, result, group_key)
     VALUES ($1, 'message', 'stored', $2, 'm0', jsonb_build_object('content', $3::text), $2)`,
    [`r-${group}`, group, marker],
  );
}
