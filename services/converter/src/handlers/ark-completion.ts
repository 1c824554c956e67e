import type { HandlerContext } from '@memstream/bus';
import { arkSessionState, completeArkSession, type Queryable } from '@memstream/store';
import { commandDone, commandRefusalOutcome } from './command-outcomes.js';
import { applyOnce } from './apply-once.js';
import { liveChannelOf, type ArkSessionCompleted, type LiveEvent, type RequestOutcome } from '@memstream/schemas';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';

/**
 * ARK session completions: the session is marked complete and its outcome recorded in one
 * transaction, so a redelivered completion finds its first answer (`completed`, not
 * `already_completed`) instead of deciding again; then every stream of the session, on every
 * replica, is told to end. Announced even when the session was complete already: a stream that
 * missed the first notice ends now.
 */
export function handleArkCompletions(deps: ConverterDeps) {
  return async (events: readonly ArkSessionCompleted[], ctx: HandlerContext): Promise<void> => {
    const outcomes = await applyOnce(
      deps.store,
      events,
      async (tx, event) =>
        (await refusal(tx, event)) ?? completed(event, await completeArkSession(tx, event.data.session_id)),
    );
    for (const outcome of outcomes) {
      if (outcome.status !== 'stored') continue;
      const sessionId = outcome.group_id!;
      await deps.fanout
        .publish(liveChannelOf(sessionId), JSON.stringify({ type: 'complete' } satisfies LiveEvent))
        .catch((err: unknown) => {
          ctx.log.warn({ err, session: sessionId }, 'completion notice failed; streams see it at their next heartbeat');
        });
    }
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ completions: events.length, correlationIds: ctx.correlationIds }, 'ark sessions completed');
  };
}

/** An unknown session, or one the person may not write to, is not found (as the read API says it). */
async function refusal(q: Queryable, event: ArkSessionCompleted): Promise<RequestOutcome | undefined> {
  const sessionId = event.data.session_id;
  return commandRefusalOutcome(q, {
    requestId: event.id,
    conversationId: sessionId,
    actor: event.actor,
    level: 'writer',
    exists: (await arkSessionState(q, sessionId)).exists,
    notFound: `session not found: ${sessionId}`,
    forbidden: (level) => `Your access to session ${sessionId} is ${level}: completing needs writer or more`,
  });
}

function completed(event: ArkSessionCompleted, first: boolean): RequestOutcome {
  return commandDone(event.id, event.data.session_id, { status: first ? 'completed' : 'already_completed' });
}
