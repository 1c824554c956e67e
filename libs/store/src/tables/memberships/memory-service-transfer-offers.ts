import type { Queryable } from '../../store.js';
import type { TransferRecord } from './memory-service-memberships.js';
import { joinConversation } from '../conversations/conversation-sql.js';

/**
 * An ownership transfer as a party to it is shown one: the record and its conversation's title,
 * which is null for a viewer who may not read the conversation (a person offered it without being
 * a member sees the offer, never the conversation).
 */
export interface TransferOffer extends TransferRecord {
  readonly conversation_title: string | null;
}

export interface TransferOfferQuery {
  /** The person asking; undefined for a caller who reaches every conversation (an agent, the local user). */
  readonly viewer: string | undefined;
  /** Which of the viewer's offers: made, received, or both (ignored without a viewer). */
  readonly role: 'sender' | 'recipient' | 'all';
  /** The last transfer of the previous page. */
  readonly after?: string;
  readonly limit: number;
}

// The conversation is joined by its group as well as its id: its shard column, as Citus joins
// distributed tables (a transfer's group is its conversation's).
const OFFER = (viewer: string) => `t.id, t.group_id, t.conversation_id, t.from_user_id, t.to_user_id, t.status,
  t.created_at, t.decided_at,
  CASE WHEN ${viewer}::text IS NULL OR EXISTS (SELECT 1 FROM conversation_memberships m
         WHERE m.group_id = t.group_id AND m.user_id = ${viewer}::text)
       THEN c.title END AS conversation_title
  FROM conversation_ownership_transfers t
  ${joinConversation('c', 't.group_id', 't.conversation_id')}`;

/** One transfer, in any state, as `viewer` is shown it; whether they may see it at all is the caller's check. */
export async function findTransferOffer(
  q: Queryable,
  id: string,
  viewer: string | undefined,
): Promise<TransferOffer | undefined> {
  const { rows } = await q.query<TransferOffer>(`SELECT ${OFFER('$2')} WHERE t.id = $1`, [id, viewer ?? null]);
  return rows[0];
}

/**
 * The pending offers the viewer made or received, oldest first (ties by id). `after` must be one
 * of the viewer's own transfers, pending or not: undefined is answered when it is not, so a page
 * never starts at a place the viewer cannot name.
 */
export async function listTransferOffers(
  q: Queryable,
  query: TransferOfferQuery,
): Promise<{ items: TransferOffer[]; more: boolean } | undefined> {
  const params: unknown[] = [query.viewer ?? null];
  const party =
    query.viewer === undefined
      ? 'TRUE'
      : query.role === 'sender'
        ? 't.from_user_id = $1'
        : query.role === 'recipient'
          ? 't.to_user_id = $1'
          : '(t.from_user_id = $1 OR t.to_user_id = $1)';
  let after = '';
  if (query.after !== undefined) {
    const { rowCount } = await q.query(
      `SELECT 1 FROM conversation_ownership_transfers t
       WHERE t.id = $2 AND ($1::text IS NULL OR t.from_user_id = $1 OR t.to_user_id = $1)`,
      [query.viewer ?? null, query.after],
    );
    if (!rowCount) return undefined;
    // compared in SQL: the timestamps hold microseconds, which a JavaScript Date would round away
    const cursor = `$${params.push(query.after)}::text`;
    after = ` AND (t.created_at, t.id) > (SELECT a.created_at, a.id FROM conversation_ownership_transfers a WHERE a.id = ${cursor})`;
  }
  const { rows } = await q.query<TransferOffer>(
    `SELECT ${OFFER('$1')} WHERE t.status = 'pending' AND ${party}${after}
     ORDER BY t.created_at, t.id LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  return { items: rows.slice(0, query.limit), more: rows.length > query.limit };
}
