import {
  accessLevelOf,
  claimConversation,
  conversationInUse,
  findRequestOutcomes,
  type Queryable,
} from '@memstream/store';
import { accessDecision, type AccessLevel, type Actor, type RequestOutcome } from '@memstream/schemas';

/** What the gate needs of an input event. */
export interface GatedEvent {
  readonly id: string;
  readonly actor?: Actor | undefined;
}

export interface GateResult<E> {
  /** The events to apply, in their order. */
  readonly admitted: E[];
  /** Outcomes for the events refused now, to record and announce. */
  readonly refused: RequestOutcome[];
}

/**
 * The authoritative write check: a person may write to a conversation they are a writer (or
 * more) of, or claim one whose id nobody uses yet, becoming its owner. It runs here, where the
 * events of one conversation are applied in order, so two people racing to create one id cannot
 * both win, and a membership revoked before the write is honoured even if the edge checked
 * earlier. Events of agents and of a server without authentication pass untouched, with no query.
 *
 * `ownRefusal` says what a person may not write anywhere (posting as someone else): it is checked
 * before any membership.
 *
 * A refused event that comes again (a redelivery) stays refused: its recorded outcome stands,
 * whatever the memberships are by then, so a status never says "failed" of a stored message.
 */
export async function gateByActor<E extends GatedEvent>(
  q: Queryable,
  events: readonly E[],
  conversationOf: (event: E) => string,
  refusal: (event: E, code: string, message: string) => RequestOutcome,
  ownRefusal: (event: E) => string | undefined = () => undefined,
): Promise<GateResult<E>> {
  const personal = events.filter((e) => e.actor?.kind === 'user');
  if (personal.length === 0) return { admitted: [...events], refused: [] };

  const earlier = await findRequestOutcomes(
    q,
    personal.map((e) => e.id),
  );
  const decisions = new Map<string, string | undefined>(); // conversation + user → refusal reason
  const admitted: E[] = [];
  const refused: RequestOutcome[] = [];
  for (const event of events) {
    if (event.actor?.kind !== 'user') {
      admitted.push(event);
      continue;
    }
    const answered = earlier.get(event.id)?.status;
    if (answered === 'failed') continue; // refused before; nothing to announce again
    if (answered === 'stored') {
      admitted.push(event); // stored before: applying it again writes nothing and publishes it again
      continue;
    }
    const own = ownRefusal(event);
    if (own !== undefined) {
      refused.push(refusal(event, 'FORBIDDEN', own));
      continue;
    }
    const conversationId = conversationOf(event);
    const key = `${conversationId}\u0000${event.actor.id}`;
    if (!decisions.has(key)) decisions.set(key, await refusalReason(q, conversationId, event.actor.id));
    const reason = decisions.get(key);
    if (reason === undefined) admitted.push(event);
    else refused.push(refusal(event, 'FORBIDDEN', reason));
  }
  return { admitted, refused };
}

async function refusalReason(q: Queryable, conversationId: string, userId: string): Promise<string | undefined> {
  const level = await accessLevelOf(q, conversationId, userId);
  const decision = accessDecision(level, 'writer');
  if (decision === 'allowed') return undefined;
  if (decision === 'below')
    return `Your access to conversation ${conversationId} is ${level}: writing needs writer or more`;
  // Not a member: writing to an id nobody uses yet claims it (the one thing only a write may do).
  if (!(await conversationInUse(q, conversationId)) && (await claimConversation(q, conversationId, userId)))
    return undefined;
  return `Conversation ${conversationId} belongs to someone else: its owner or a manager can share it with you`;
}

/**
 * Whether a person's level lets them run a command (a completion, a flush, a deletion) on a
 * conversation: undefined when it does (agents and writes without an actor always may), else
 * RESOURCE_NOT_FOUND for a non-member, who may not learn it exists, or FORBIDDEN with their level.
 */
export async function commandRefusal(
  q: Queryable,
  conversationId: string,
  actor: Actor | undefined,
  needed: AccessLevel,
): Promise<{ code: 'RESOURCE_NOT_FOUND' } | { code: 'FORBIDDEN'; level: AccessLevel } | undefined> {
  if (actor?.kind !== 'user') return undefined;
  const level = await accessLevelOf(q, conversationId, actor.id);
  const decision = accessDecision(level, needed);
  if (decision === 'not-member' || level === undefined) return { code: 'RESOURCE_NOT_FOUND' };
  return decision === 'allowed' ? undefined : { code: 'FORBIDDEN', level };
}
