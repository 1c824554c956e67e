import type { Queryable } from '../store.js';
import { HIT_COLUMNS, whereOf, type SearchFilters, type SearchHit } from './search.js';

/** A searched message's place in its conversation: who said it and the turns either side of it. */
export interface TurnContext {
  readonly itemId: string;
  readonly conversationId: string;
  readonly messageId: string;
  readonly senderName: string;
  readonly prevMessageId: string | null;
  readonly nextMessageId: string | null;
}

/** A neighbour's search row, with its sender's name. */
export interface NeighbourHit {
  readonly hit: SearchHit;
  readonly senderName: string;
}

/**
 * Turns further apart than this are not each other's context: a reply comes within minutes, and
 * the first turn of a new session days later answers nothing of the last one (the extractor's
 * silence split, EPISODE_SILENCE_MS, uses the same 4 hours by default).
 */
const CONTEXT_GAP = "interval '4 hours'";

/**
 * For message search rows (item ids), their sender and nearest neighbours among the messages that
 * still exist, read at query time: a deleted turn is simply no longer anyone's neighbour, so no
 * word of it survives in what ranks the turns around it. Also returns the search rows of those
 * neighbours that match the filters and are not among `itemIds`, so a reply the methods missed can
 * be found through the turn it answers.
 */
export async function turnContext(
  q: Queryable,
  itemIds: readonly string[],
  filters: SearchFilters,
  options: { neighbours: boolean } = { neighbours: true },
): Promise<{ turns: TurnContext[]; neighbours: NeighbourHit[] }> {
  if (itemIds.length === 0) return { turns: [], neighbours: [] };
  const { rows } = await q.query<{ item_id: string; conversation_id: string; message_id: string; sender_name: string; prev_id: string | null; prev_item: string | null; prev_sender: string | null; next_id: string | null; next_item: string | null; next_sender: string | null }>(
    `SELECT c.id::text AS item_id, c.conversation_id, c.message_id, c.sender_name,
            p.message_id AS prev_id, p.id::text AS prev_item, p.sender_name AS prev_sender,
            n.message_id AS next_id, n.id::text AS next_item, n.sender_name AS next_sender
       FROM messages c
       LEFT JOIN LATERAL (SELECT id, message_id, sender_name FROM messages x WHERE x.conversation_id = c.conversation_id AND x.seq < c.seq
                            AND x.created_at >= c.created_at - ${CONTEXT_GAP} ORDER BY x.seq DESC LIMIT 1) p ON true
       LEFT JOIN LATERAL (SELECT id, message_id, sender_name FROM messages x WHERE x.conversation_id = c.conversation_id AND x.seq > c.seq
                            AND x.created_at <= c.created_at + ${CONTEXT_GAP} ORDER BY x.seq LIMIT 1) n ON true
      WHERE c.id = ANY($1::int8[])`,
    [itemIds.map(Number)],
  );
  const known = new Set(itemIds);
  const missing = [...new Set(rows.flatMap((r) => [r.prev_item, r.next_item]).filter((id): id is string => id !== null && !known.has(id)))];
  const senders = new Map(rows.flatMap((r) => [[r.prev_item, r.prev_sender], [r.next_item, r.next_sender]] as const));
  let neighbours: NeighbourHit[] = [];
  if (options.neighbours && missing.length > 0) {
    const params: unknown[] = [missing];
    const where = whereOf({ ...filters, kinds: ['message'] }, params);
    const found = await q.query<SearchHit>(`SELECT ${HIT_COLUMNS}, 0::float8 AS score FROM search_items WHERE item_id = ANY($1::text[]) AND ${where}`, params);
    neighbours = found.rows.map((hit) => ({ hit, senderName: senders.get(hit.item_id) ?? '' }));
  }
  return {
    turns: rows.map((r) => ({ itemId: r.item_id, conversationId: r.conversation_id, messageId: r.message_id, senderName: r.sender_name, prevMessageId: r.prev_id, nextMessageId: r.next_id })),
    neighbours,
  };
}
