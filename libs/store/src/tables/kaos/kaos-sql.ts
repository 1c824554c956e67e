import type { Queryable } from '../../store.js';
import { ownedByAnother } from '../memberships/membership-sql.js';

/**
 * What other folders' statements ask of KAOS sessions and their events, as SQL to put inside
 * them, and the events' part in removing what was said. A KAOS session is its own group, so its
 * conversation id is its shard column: the joins below name it on both sides of the group.
 */

/**
 * A left join to the KAOS session the conversation is, if it is one: `group` and `conversation`
 * are the outer row's group and id, both matched, as Citus joins on the shard column.
 */
export const leftJoinKaosSession = (alias: string, group: string, conversation: string) =>
  `LEFT JOIN kaos_sessions ${alias} ON ${alias}.conversation_id = ${group} AND ${alias}.conversation_id = ${conversation}`;

/** True when the conversation (an id expression) is a KAOS session. */
export const isKaosSession = (conversation: string) => `${conversation} IN (SELECT conversation_id FROM kaos_sessions)`;

/**
 * The events that are something said, unless `all`: a person's turn and the agent's answer, each
 * also a message. Tool and delegation events are no messages, and message retention leaves them.
 */
const said = (all: boolean) => (all ? '' : `AND e.event_type IN ('user_message', 'agent_response')`);

/** True when the session (its group and id) has events before `before` (see said for `all`). */
export const hasEventsBefore = (group: string, conversation: string, before: string, all: boolean) =>
  `EXISTS (SELECT 1 FROM kaos_events e
     WHERE e.conversation_id = ${group} AND e.conversation_id = ${conversation} AND e.occurred_at < ${before} ${said(all)})`;

/** Deletes the session's events before `before` (see said for `all`); how many. */
export async function deleteEventsBefore(
  tx: Queryable,
  conversationId: string,
  before: Date,
  all: boolean,
): Promise<number> {
  const gone = await tx.query(
    `DELETE FROM kaos_events e WHERE e.conversation_id = $1 AND e.occurred_at < $2 ${said(all)}`,
    [conversationId, before],
  );
  return gone.rowCount ?? 0;
}

/**
 * The sessions (their ids, which are their groups) made for `person` that nobody else owns, as a
 * subquery's rows: theirs whole, though their agent made them (lifecycle/person-rows.ts).
 */
export const sessionGroupsMadeFor = (person: string) =>
  `SELECT k.conversation_id FROM kaos_sessions k
       WHERE k.user_id = ${person}
         AND NOT ${ownedByAnother('k.conversation_id', person)}`;

/** Deletes the session's events that meet `where` (SQL over `kaos_events`, given `value`'s placeholder); returns how many. */
export async function deleteKaosEventsWhere(
  tx: Queryable,
  conversationId: string,
  where: (param: string) => string,
  value: unknown,
): Promise<number> {
  const { rowCount } = await tx.query(
    `DELETE FROM kaos_events WHERE kaos_events.conversation_id = $1 AND ${where('$2')}`,
    [conversationId, value],
  );
  return rowCount ?? 0;
}
