import type { Queryable } from '../store.js';
import { addErasureCounts, noErasureCounts, type ErasureCounts } from '../participant/erasure-counts.js';
import { PARTICIPANTS } from './registry.js';

/**
 * The rows that name a person but that others write, at will and without the person (each table
 * says which, as its lifecycle participant's `erase.writtenByOthers`): their memberships of other
 * people's conversations (a share), the record of memberships they lost (a revoke), the ownership
 * transfers offered to them, request outcomes that name them, their entry in EverMemOS group
 * metadata. None holds the person's words or anything made from them, and removing one takes no
 * cascade, so the erasure removes them in its keyed-records step and again inside the
 * final check, under its locks, instead of counting them as data still to erase: a person who keeps
 * sharing and revoking with someone being erased cannot hold back that erasure (issue 49, item 11).
 * An owner's membership is not among them: a conversation the person owns is theirs, removed whole.
 */
export async function eraseWrittenAbout(tx: Queryable, userId: string): Promise<ErasureCounts> {
  let counts = noErasureCounts();
  for (const p of PARTICIPANTS)
    if (p.erase?.named && p.erase.writtenByOthers) counts = addErasureCounts(counts, await p.erase.named(tx, userId));
  return counts;
}
