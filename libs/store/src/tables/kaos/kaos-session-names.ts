import type { Queryable } from '../../store.js';

/**
 * `kaos_session_names`: which conversation an agent's session id names now (migration 0040). It
 * is distributed by agent, the session by its conversation, so the two are written in one
 * transaction by whoever makes or deletes a session, and never by an append.
 */

/** The conversation of the agent's live session of that id, if there is one. */
export async function kaosSessionConversation(
  q: Queryable,
  agent: string,
  sessionId: string,
): Promise<string | undefined> {
  const { rows } = await q.query<{ conversation_id: string }>(
    'SELECT conversation_id FROM kaos_session_names WHERE agent = $1 AND session_id = $2',
    [agent, sessionId],
  );
  return rows[0]?.conversation_id;
}

/**
 * Gives the name to the conversation unless a live session holds it: false then. A create of the
 * same name in another transaction makes this one wait on the key until it ends.
 */
export async function claimKaosSessionName(
  tx: Queryable,
  agent: string,
  sessionId: string,
  conversationId: string,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO kaos_session_names (agent, session_id, conversation_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [agent, sessionId, conversationId],
  );
  return (rowCount ?? 0) > 0;
}

/** Frees the names of deleted sessions, found by agent (the shard column) and conversation. */
export async function releaseKaosSessionNames(
  tx: Queryable,
  sessions: readonly { readonly agent: string; readonly conversation_id: string }[],
): Promise<void> {
  if (sessions.length === 0) return;
  await tx.query('DELETE FROM kaos_session_names WHERE agent = ANY($1::text[]) AND conversation_id = ANY($2::text[])', [
    [...new Set(sessions.map((s) => s.agent))],
    sessions.map((s) => s.conversation_id),
  ]);
}
