import { databaseNow } from '../../database-clock.js';
import { GENERIC_PLAN, type Queryable } from '../../store.js';
import type { SearchItemToEmbed } from './search-items.js';
import { joinMessageAnyGroup, messagesStoredAfter } from '../conversations/message-sql.js';
import { leftJoinMemoryById } from '../memories/memory-sql.js';

/**
 * search_unembedded: search rows no stored event will bring a vector for, which the indexer's sweep
 * embeds. What an import wrote, turns whose context turn was forgotten (forgetMessagesIn), and
 * messages whose indexing was dead-lettered or whose vector never came. A vector's write takes its
 * row off the queue (writeMessageVectors, replaceVectors); a row the sweep could not embed waits
 * longer each time (postponeUnembedded, migration 0029).
 */

/** Queued items that are due, the longest waiting first (search_unembedded_due_idx). */
export async function unembeddedItems(q: Queryable, limit: number): Promise<SearchItemToEmbed[]> {
  const { rows } = await q.query<SearchItemToEmbed>(
    `SELECT s.group_key, s.kind, s.item_id, s.content, s.conversation_id, s.message_ids
     FROM (SELECT group_key, kind, item_id, not_before FROM search_unembedded
            WHERE not_before <= now() ORDER BY not_before LIMIT $1) u
     JOIN search_items s ON s.group_key = u.group_key AND s.kind = u.kind AND s.item_id = u.item_id
     ORDER BY u.not_before`,
    [limit],
  );
  return rows;
}

/**
 * A search row named by its kind and id, with its group when the caller has it; a memory's is
 * otherwise read from the memory (its id is its key), so the rows are found by their whole key.
 */
export type QueuedItem = Pick<SearchItemToEmbed, 'kind' | 'item_id'> & { readonly group_key?: string | undefined };

/** The rows of `items` ($1 kinds, $2 ids, $3 groups) as `t(group_key, kind, item_id)`, their groups found. */
const ITEMS_WITH_GROUPS = `(SELECT COALESCE(i.g, em.group_key) AS group_key, i.kind, i.item_id
       FROM unnest($1::text[], $2::text[], $3::text[]) AS i(kind, item_id, g)
       ${leftJoinMemoryById('em', 'i.item_id', "i.g IS NULL AND i.kind = 'episodic_memory'")}) t`;

const itemParams = (items: readonly QueuedItem[]) => [
  items.map((i) => i.kind),
  items.map((i) => i.item_id),
  items.map((i) => i.group_key ?? null),
];

/** How long a queued item that was not embedded waits: `firstMs`, doubled each failure, at most `maxMs`. */
export interface UnembeddedBackoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

/**
 * Pushes out the items still queued after a try: those whose vector was written are gone from the
 * queue already, so only the ones that failed, or were not written (a context that kept changing),
 * wait longer. The exponent is bounded before the cap applies, so the arithmetic cannot overflow.
 * The new time is made by to_timestamp() from the clock's epoch and the delay: Citus refuses
 * timestamptz + interval (a STABLE operator, as it depends on the time zone) beside a column in an
 * UPDATE.
 */
export async function postponeUnembedded(
  q: Queryable,
  items: readonly QueuedItem[],
  backoff: UnembeddedBackoff,
): Promise<number> {
  if (items.length === 0) return 0;
  // from the database's clock, which every indexer's sweep compares not_before with (unembeddedItems)
  const { rowCount } = await q.query(
    `UPDATE search_unembedded u
     SET attempts = u.attempts + 1,
         not_before = to_timestamp(
           extract(epoch FROM $6::timestamptz)::float8 + least($5::float8, $4::float8 * power(2, least(u.attempts, 40))) / 1000)
     FROM ${ITEMS_WITH_GROUPS}
     WHERE u.group_key = t.group_key AND u.kind = t.kind AND u.item_id = t.item_id`,
    [...itemParams(items), backoff.firstMs, backoff.maxMs, await databaseNow(q)],
  );
  return rowCount;
}

/**
 * Queues search rows the sweep could not embed (a memory's, or a vector of another model): they
 * wait there with a backoff instead of being tried on every sweep. A row deleted meanwhile is left
 * out; one already queued keeps its place and its backoff.
 */
export async function queueItemsToEmbed(q: Queryable, items: readonly QueuedItem[]): Promise<number> {
  if (items.length === 0) return 0;
  const { rowCount } = await q.query(
    `INSERT INTO search_unembedded (group_key, kind, item_id)
     SELECT s.group_key, s.kind, s.item_id
     FROM ${ITEMS_WITH_GROUPS}
     JOIN search_items s ON s.group_key = t.group_key AND s.kind = t.kind AND s.item_id = t.item_id
     ON CONFLICT (group_key, kind, item_id) DO NOTHING`,
    itemParams(items),
  );
  return rowCount;
}

/**
 * Queues stored messages, by their keys, that have a search row and no vector (a dead-lettered
 * indexing: nothing else would embed them). A message deleted meanwhile has no search row and is
 * left out; one already queued keeps its place and its backoff.
 */
export async function queueMessagesToEmbed(
  q: Queryable,
  keys: ReadonlyArray<{ conversationId: string; messageId: string }>,
): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await q.query(
    `INSERT INTO search_unembedded (group_key, kind, item_id)
     SELECT s.group_key, 'message', s.item_id
     FROM unnest($1::text[], $2::text[]) AS t(c, mid)
     ${joinMessageAnyGroup('m', 't.c', 't.mid')}
     JOIN search_items s ON s.group_key = m.group_key AND s.kind = 'message' AND s.item_id = m.id::text
     WHERE NOT EXISTS (SELECT 1 FROM search_vectors v
                        WHERE v.group_key = s.group_key AND v.kind = 'message' AND v.item_id = s.item_id)
     ON CONFLICT (group_key, kind, item_id) DO NOTHING`,
    [keys.map((k) => k.conversationId), keys.map((k) => k.messageId)],
  );
  return rowCount;
}

/**
 * One step of a walk over the stored messages in storage order (messages_id_idx): the next `window`
 * messages after `after` (a messages.id), of those stored at least `settledMs` ago, the ones with a
 * search row and no vector are queued. Returns where the walk got to: the last message looked at
 * that is settled; the walk stops at the first message too recent, whose event the indexer may
 * still be handling, and takes it up again on a later step. Each step reads at most `window` index
 * entries and probes search_items and search_vectors by key for each, whatever the table's size.
 *
 * Two statements: the window read (its age by the database's clock), then the queueing of the
 * settled ones by their keys. One statement probed the two tables from the window's CTE with
 * correlated subqueries, which Citus does not plan; from a list of keys, an anti-join does.
 */
export async function queueMessagesWithoutVectors(
  q: Queryable,
  after: string,
  window: number,
  settledMs: number,
): Promise<{ next: string; queued: number }> {
  const rows = await messagesStoredAfter(q, after, window, settledMs);
  const firstRecent = rows.findIndex((r) => r.recent);
  const settled = firstRecent === -1 ? rows : rows.slice(0, firstRecent);
  if (settled.length === 0) return { next: after, queued: 0 };
  // planned for no particular window (GENERIC_PLAN): a probe by key a message; planned for its
  // size, the window was joined to a hash of all of search_items up to some hundred thousand rows
  const { rowCount } = await q.query(
    `${GENERIC_PLAN}INSERT INTO search_unembedded (group_key, kind, item_id)
     SELECT s.group_key, 'message', s.item_id
     FROM unnest($1::text[], $2::text[]) AS m(g, item_id)
     JOIN search_items s ON s.group_key = m.g AND s.kind = 'message' AND s.item_id = m.item_id
     LEFT JOIN search_vectors v ON v.group_key = s.group_key AND v.kind = 'message' AND v.item_id = s.item_id
     WHERE v.item_id IS NULL
     ON CONFLICT (group_key, kind, item_id) DO NOTHING`,
    [settled.map((r) => r.group_key), settled.map((r) => r.id)],
  );
  return { next: settled.at(-1)!.id, queued: rowCount };
}

/**
 * Drops the vectors of the turns embedded with one of the messages `itemIds` as their context and
 * queues those turns to be embedded again: a vector carries the words of the turn before it.
 */
export async function requeueVectorsWithContext(tx: Queryable, itemIds: readonly string[]): Promise<void> {
  await tx.query(
    `WITH cleared AS (
       DELETE FROM search_vectors WHERE context_item_id = ANY($1::text[]) AND kind = 'message'
       RETURNING group_key, kind, item_id
     )
     INSERT INTO search_unembedded (group_key, kind, item_id) SELECT group_key, kind, item_id FROM cleared
     ON CONFLICT DO NOTHING`,
    [[...itemIds]],
  );
}
