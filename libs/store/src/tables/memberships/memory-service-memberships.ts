import type { Queryable } from '../../store.js';
import { deleteMembership, demoteOwner, type MembershipRecord, setMembership } from './membership-rows.js';

export { type MembershipRecord, setMembership } from './membership-rows.js';

export async function listMemberships(q: Queryable, groupId: string): Promise<MembershipRecord[]> {
  const { rows } = await q.query<MembershipRecord>(
    `SELECT group_id, user_id, access_level, created_at FROM conversation_memberships WHERE group_id = $1
     ORDER BY array_position(ARRAY['owner', 'manager', 'writer', 'reader'], access_level), created_at, user_id`,
    [groupId],
  );
  return rows;
}

export async function findMembership(
  q: Queryable,
  groupId: string,
  userId: string,
): Promise<MembershipRecord | undefined> {
  const { rows } = await q.query<MembershipRecord>(
    'SELECT group_id, user_id, access_level, created_at FROM conversation_memberships WHERE group_id = $1 AND user_id = $2',
    [groupId, userId],
  );
  return rows[0];
}

/**
 * Removes a member; an ownership transfer offered to them ends with their membership. The
 * membership is kept as a removal (no access, only the record) until retention evicts it.
 */
export async function removeMembership(q: Queryable, groupId: string, userId: string): Promise<boolean> {
  const removed = await deleteMembership(q, groupId, userId);
  await cancelPendingTransfers(q, [groupId], userId);
  return removed;
}

export interface TransferRecord {
  readonly id: string;
  readonly group_id: string;
  readonly conversation_id: string;
  readonly from_user_id: string;
  readonly to_user_id: string;
  readonly status: 'pending' | 'accepted' | 'declined' | 'superseded' | 'withdrawn' | 'cancelled';
  readonly created_at: Date;
  readonly decided_at: Date | null;
}

const TRANSFER = 'id, group_id, conversation_id, from_user_id, to_user_id, status, created_at, decided_at';

/**
 * Records a transfer request; the caller has made sure none is pending for the group (a second
 * offer is refused; 'superseded' is left from when it replaced the first). A replayed id changes nothing.
 */
export async function requestTransfer(
  q: Queryable,
  t: { id: string; groupId: string; conversationId: string; from: string; to: string },
): Promise<TransferRecord> {
  const existing = await findTransfer(q, t.id, t.groupId);
  if (existing) return existing;
  const { rows } = await q.query<TransferRecord>(
    `INSERT INTO conversation_ownership_transfers (id, group_id, conversation_id, from_user_id, to_user_id, status)
     VALUES ($1, $2, $3, $4, $5, 'pending') RETURNING ${TRANSFER}`,
    [t.id, t.groupId, t.conversationId, t.from, t.to],
  );
  return rows[0]!;
}

/** With `groupId`, a lookup by the whole key (one shard); without, by the id alone (the API has only it). */
export async function findTransfer(q: Queryable, id: string, groupId?: string): Promise<TransferRecord | undefined> {
  const { rows } = await q.query<TransferRecord>(
    `SELECT ${TRANSFER} FROM conversation_ownership_transfers WHERE id = $1${groupId === undefined ? '' : ' AND group_id = $2'}`,
    groupId === undefined ? [id] : [id, groupId],
  );
  return rows[0];
}

export async function pendingTransfer(q: Queryable, groupId: string): Promise<TransferRecord | undefined> {
  const { rows } = await q.query<TransferRecord>(
    `SELECT ${TRANSFER} FROM conversation_ownership_transfers WHERE group_id = $1 AND status = 'pending'`,
    [groupId],
  );
  return rows[0];
}

/**
 * Ends the pending transfers of these groups (only those offered to `toUserId`, when given) as
 * cancelled: the group was deleted, or the recipient is no longer a member. Called in the
 * transaction of that change, so no moment exists in which the offer could still be accepted;
 * `at` is that change's time, when it has one.
 */
export async function cancelPendingTransfers(
  q: Queryable,
  groupIds: readonly string[],
  toUserId?: string,
  at: Date | string = new Date(),
): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE conversation_ownership_transfers SET status = 'cancelled', decided_at = $3::timestamptz
     WHERE group_id = ANY($1::text[]) AND status = 'pending' AND ($2::text IS NULL OR to_user_id = $2)`,
    [[...groupIds], toUserId ?? null, at],
  );
  return rowCount ?? 0;
}

/**
 * Settles a pending transfer: accepted, the recipient becomes the owner and the former owner a
 * manager (both rows in this transaction, so the group never has two owners or none); declined by
 * its recipient, or withdrawn by the owner, nothing else changes.
 */
export async function settleTransfer(
  q: Queryable,
  transfer: TransferRecord,
  outcome: 'accepted' | 'declined' | 'withdrawn',
  at: Date = new Date(),
): Promise<TransferRecord> {
  if (outcome === 'accepted') {
    await demoteOwner(q, transfer.group_id);
    await setMembership(q, transfer.group_id, transfer.to_user_id, 'owner');
  }
  const { rows } = await q.query<TransferRecord>(
    `UPDATE conversation_ownership_transfers SET status = $2, decided_at = $3::timestamptz
     WHERE group_id = $4 AND id = $1 RETURNING ${TRANSFER}`,
    [transfer.id, outcome, at, transfer.group_id],
  );
  return rows[0]!;
}
