import type { Queryable } from '../../store.js';
import { messageSearchText } from '../search/search-text.js';
import { CONTEXT_GAP } from './turn-context.js';

/** A stored message as the indexer embeds it: its own search text and, when asked for, the turn before it. */
export interface TurnEmbeddingInput {
  /** The group the message is stored under (its shard column). */
  readonly groupKey: string;
  readonly conversationId: string;
  readonly messageId: string;
  /** What the message's search row holds ('' for a message with nothing to search). */
  readonly text: string;
  /** The search item id (messages.id) of the turn before it, or null: none, or not asked for. */
  readonly contextItemId: string | null;
  /** That turn's search text ('' with no turn before). */
  readonly contextText: string;
}

/** The turn before the messages row `m`, as an object (see turnEmbeddingInputs). */
const TURN_BEFORE = `(SELECT jsonb_build_object('id', x.id::text, 'sender_id', x.sender_id, 'sender_name', x.sender_name,
                                       'content', x.content)
               FROM messages x
              WHERE x.group_key = m.group_key AND x.conversation_id = m.conversation_id
                AND x.seq < m.seq AND x.created_at >= m.created_at - ${CONTEXT_GAP}
                AND (x.audience IS NULL OR x.audience = m.audience) AND btrim(x.content) <> ''
              ORDER BY x.seq DESC LIMIT 1)`;

/**
 * The messages named by `keys` that still exist, each with the turn before it when `withContext`:
 * the nearest earlier message (by seq) of its conversation said within CONTEXT_GAP before it (the
 * neighbour hybrid lends rank from at query time), with something to search, and readable by
 * everyone who can read the turn itself (no audience, or the same one): a vector must not carry
 * words its readers may not see. Which turn that is never changes while it exists (later messages
 * come after, and nothing is inserted before), so forgetting it is the only event that changes a
 * turn's context (forgetMessagesIn clears the vectors that name it).
 */
export async function turnEmbeddingInputs(
  q: Queryable,
  keys: ReadonlyArray<{ conversationId: string; messageId: string }>,
  withContext: boolean,
): Promise<TurnEmbeddingInput[]> {
  if (keys.length === 0) return [];
  const { rows } = await q.query<{
    group_key: string;
    conversation_id: string;
    message_id: string;
    sender_id: string;
    sender_name: string;
    content: string;
    ctx: { id: string; sender_id: string; sender_name: string; content: string } | null;
  }>(
    // The turn before is one row found by a backward walk of its conversation's key (a subquery
    // over the messages row, with the group, not a LATERAL join beside unnest(), which Citus
    // refuses), as an object: a scalar subquery yields one value. Left out of the text when not
    // asked for, not switched off by a parameter: a subquery whose condition folds to false loses
    // its join on the group, and Citus then refuses the statement.
    `SELECT m.group_key, m.conversation_id, m.message_id, m.sender_id, m.sender_name, m.content,
            ${withContext ? TURN_BEFORE : 'NULL::jsonb'} AS ctx
       FROM unnest($1::text[], $2::text[]) AS t(c, mid)
       JOIN messages m ON m.conversation_id = t.c AND m.message_id = t.mid`,
    [keys.map((k) => k.conversationId), keys.map((k) => k.messageId)],
  );
  return rows.map((r) => ({
    groupKey: r.group_key,
    conversationId: r.conversation_id,
    messageId: r.message_id,
    text: messageSearchText(r),
    contextItemId: r.ctx?.id ?? null,
    contextText: r.ctx === null ? '' : messageSearchText(r.ctx),
  }));
}
