import type { Queryable } from '../store.js';
import { addCount, familyOf, noErasureCounts, type ErasureCounts } from './erasure-counts.js';

/**
 * The rows that name a person but that others write, at will and without the person: their
 * memberships of other people's conversations (a share), the record of memberships they lost (a
 * revoke), the ownership transfers offered to them, request outcomes that name them, their entry in
 * EverMemOS group metadata. None holds the person's words or anything made from them, and removing
 * one takes no cascade, so the erasure removes them in its keyed-records step and again inside the
 * final check, under its locks, instead of counting them as data still to erase: a person who keeps
 * sharing and revoking with someone being erased cannot hold back that erasure (issue 49, item 11).
 * An owner's membership is not among them: a conversation the person owns is theirs, removed whole.
 */
export async function eraseWrittenAbout(tx: Queryable, userId: string): Promise<ErasureCounts> {
  const counts = noErasureCounts();
  const metas = await tx.query(
    `UPDATE conversation_meta SET user_details = user_details - $1, updated_at = now() WHERE user_details ? $1`,
    [userId],
  );
  // the default config's participants too (what groups without metadata fall back to)
  const defaults = await tx.query(
    `UPDATE conversation_meta_default SET user_details = user_details - $1, updated_at = now() WHERE user_details ? $1`,
    [userId],
  );
  addCount(counts, 'evermemos', 'postgres', 'groupMetadataRewritten', (metas.rowCount ?? 0) + (defaults.rowCount ?? 0));
  const memberships = await tx.query<{ source_api: string | null }>(
    `DELETE FROM conversation_memberships m WHERE m.user_id = $1 AND m.access_level <> 'owner'
     RETURNING (SELECT c.source_api FROM conversations c WHERE c.id = m.group_id) AS source_api`,
    [userId],
  );
  for (const m of memberships.rows) addCount(counts, familyOf(m.source_api), 'postgres', 'memberships', 1);
  // the record of memberships they once had and lost (who had which level until when) names them too
  const removals = await tx.query<{ source_api: string | null }>(
    `DELETE FROM conversation_membership_removals r WHERE r.user_id = $1
     RETURNING (SELECT c.source_api FROM conversations c WHERE c.id = r.group_id) AS source_api`,
    [userId],
  );
  for (const r of removals.rows) addCount(counts, familyOf(r.source_api), 'postgres', 'membershipRemovals', 1);
  // A request's recorded answer (kept for status lookups until the purge) may name them: their
  // private chat as its group, or their id in the answer. JSON text quotes the id as to_json does.
  const outcomes = await tx.query<{ kind: string }>(
    `DELETE FROM request_outcomes
     WHERE group_id = 'private:' || $1 OR strpos(result::text, to_json($1::text)::text) > 0
     RETURNING kind`,
    [userId],
  );
  for (const o of outcomes.rows)
    addCount(counts, o.kind === 'conversation' ? 'memory-service' : 'evermemos', 'postgres', 'requestOutcomes', 1);
  const transfers = await tx.query(
    'DELETE FROM conversation_ownership_transfers WHERE from_user_id = $1 OR to_user_id = $1',
    [userId],
  );
  addCount(counts, 'memory-service', 'postgres', 'transfers', transfers.rowCount ?? 0);
  return counts;
}
