import type { LifecycleParticipant } from '../participant/participant.js';
import { conversationsIn, privateChatGroupOf } from '../tables/conversations/conversation-sql.js';
import { sessionGroupsMadeFor } from '../tables/kaos/kaos-sql.js';
import { groupsOwnedBy } from '../tables/memberships/membership-sql.js';

/**
 * A person's rows, as both the export and the erasure of a person read them (so the two agree row
 * for row): the groups that are theirs whole, and in each table the rows inside those groups or
 * named by the table's participant.
 */

/**
 * The conversation groups that are a person's whole: the groups they own, their private chat, and
 * the KAOS sessions made for them that nobody else owns. A session's user id stays what its agent
 * named when it changes hands: one someone else owns now (an ownership transfer) is that owner's,
 * and only the person's turns in it are theirs; one nobody owns (a direct producer's, or made with
 * authentication off) is taken by its user id. `readable`: only what the person may read themself (a session nobody
 * owns is read by its agent only), for their own export.
 */
export function personGroupsSql(person: string, o: { readable?: boolean } = {}): string {
  const kaos = o.readable ? '' : `UNION ${sessionGroupsMadeFor(person)}`;
  return `${groupsOwnedBy(person)}
    UNION ${privateChatGroupOf(person)}
    ${kaos}`;
}

/** True (SQL) for a row of `p` inside the person's groups. */
export function wholeSql(p: LifecycleParticipant, groups: string): string {
  const w = p.within;
  if (w === 'nowhere') return 'false';
  if ('group' in w) return `${p.table}.${w.group} IN (${groups})`;
  const conversations = conversationsIn(groups);
  if ('conversation' in w) return `${p.table}.${w.conversation} IN (${conversations})`;
  // an ARK session's id is its conversation's, and its group's when it has no conversation yet
  return `(${p.table}.${w.session} IN (${conversations}) OR ${p.table}.${w.session} IN (${groups}))`;
}

/** The named condition of `p`, or false. */
export const namedSql = (p: LifecycleParticipant, person: string) => (p.named ? `(${p.named(person)})` : 'false');
