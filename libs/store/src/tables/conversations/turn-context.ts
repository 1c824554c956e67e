import type { Queryable } from '../../store.js';
import { whereOf, type SearchFilters, type SearchHit } from '../search/search.js';
import { joinSearchRow } from '../search/search-sql.js';

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
export const CONTEXT_GAP = "interval '4 hours'";

/**
 * For message search rows (item ids), their sender and nearest neighbours among the messages that
 * still exist, read at query time: a deleted turn is simply no longer anyone's neighbour, so no
 * word of it survives in what ranks the turns around it. Also returns the search rows of those
 * neighbours that match the filters and are not among `itemIds`, so a reply the methods missed can
 * be found through the turn it answers. With `neighbours: false`, only who said each turn: no
 * neighbours, and no prev/next ids either (a ranking that lends nothing from them has no use for them).
 */
export async function turnContext(
  q: Queryable,
  itemIds: readonly string[],
  filters: SearchFilters,
  options: { neighbours: boolean } = { neighbours: true },
): Promise<{ turns: TurnContext[]; neighbours: NeighbourHit[] }> {
  if (itemIds.length === 0) return { turns: [], neighbours: [] };
  if (!options.neighbours) return { turns: await turnsAlone(q, itemIds), neighbours: [] };
  const params: unknown[] = [itemIds.map(Number), [...itemIds]];
  // the neighbours are joined on their turns' groups: a group named by the filters would be a
  // second, ambiguous group_key here
  const where = whereOf({ ...filters, groupKey: undefined, kinds: ['message'] }, params);
  // One statement (a search waits for it): the turns' rows, then their neighbours' search rows.
  // Each neighbour is walked to within its turn's group (the shard column: Citus runs the walk
  // beside the turn's shard, and refuses it on the conversation alone).
  const { rows } = await q.query<{
    row_kind: 'turn' | 'neighbour';
    item_id: string;
    conversation_id: string;
    message_id: string | null;
    sender_name: string;
    prev_id: string | null;
    next_id: string | null;
    kind: SearchHit['kind'] | null;
    user_id: string | null;
    content: string | null;
    occurred_at: Date | null;
    message_ids: string[] | null;
  }>(
    `WITH t AS MATERIALIZED (
       SELECT c.id::text AS item_id, c.conversation_id, c.message_id, c.sender_name,
              p.message_id AS prev_id, p.id::text AS prev_item, p.sender_name AS prev_sender,
              n.message_id AS next_id, n.id::text AS next_item, n.sender_name AS next_sender, c.group_key
         FROM messages c
         LEFT JOIN LATERAL (SELECT id, message_id, sender_name FROM messages x
                             WHERE x.group_key = c.group_key AND x.conversation_id = c.conversation_id AND x.seq < c.seq
                              AND x.created_at >= c.created_at - ${CONTEXT_GAP} ORDER BY x.seq DESC LIMIT 1) p ON true
         LEFT JOIN LATERAL (SELECT id, message_id, sender_name FROM messages x
                             WHERE x.group_key = c.group_key AND x.conversation_id = c.conversation_id AND x.seq > c.seq
                              AND x.created_at <= c.created_at + ${CONTEXT_GAP} ORDER BY x.seq LIMIT 1) n ON true
        WHERE c.id = ANY($1::int8[])
     ),
     around AS (SELECT group_key, prev_item AS id, prev_sender AS sender FROM t
                UNION SELECT group_key, next_item, next_sender FROM t)
     SELECT 'turn' AS row_kind, item_id, conversation_id, message_id, sender_name, prev_id, next_id,
            NULL AS kind, NULL AS user_id, NULL AS content, NULL::timestamptz AS occurred_at, NULL::text[] AS message_ids
       FROM t
     UNION ALL
     SELECT 'neighbour', si.item_id, si.conversation_id, NULL, a.sender, NULL, NULL, si.kind, si.user_id, si.content, si.occurred_at, si.message_ids
       FROM around a ${joinSearchRow('si', 'message', 'a.group_key', 'a.id')}
      WHERE a.id <> ALL($2::text[]) AND ${where}`,
    params,
  );
  const turns: TurnContext[] = [];
  const neighbours: NeighbourHit[] = [];
  for (const r of rows) {
    if (r.row_kind === 'turn') {
      turns.push({
        itemId: r.item_id,
        conversationId: r.conversation_id,
        messageId: r.message_id!,
        senderName: r.sender_name,
        prevMessageId: r.prev_id,
        nextMessageId: r.next_id,
      });
    } else {
      const hit: SearchHit = {
        kind: r.kind!,
        item_id: r.item_id,
        conversation_id: r.conversation_id,
        user_id: r.user_id,
        content: r.content!,
        occurred_at: r.occurred_at!,
        message_ids: r.message_ids!,
        score: 0,
      };
      neighbours.push({ hit, senderName: r.sender_name });
    }
  }
  return { turns, neighbours };
}

/**
 * The turns' own rows, without their neighbours: a ranking that lends nothing from neighbours
 * (the memory-service search's) need not look them up, which was most of this call's time.
 */
async function turnsAlone(q: Queryable, itemIds: readonly string[]): Promise<TurnContext[]> {
  const { rows } = await q.query<{ item_id: string; conversation_id: string; message_id: string; sender_name: string }>(
    `SELECT id::text AS item_id, conversation_id, message_id, sender_name FROM messages WHERE id = ANY($1::int8[])`,
    [itemIds.map(Number)],
  );
  return rows.map((r) => ({
    itemId: r.item_id,
    conversationId: r.conversation_id,
    messageId: r.message_id,
    senderName: r.sender_name,
    prevMessageId: null,
    nextMessageId: null,
  }));
}
