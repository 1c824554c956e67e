import type { HandlerContext } from '@memstream/bus';
import { arkSessionState, completeArkSession, type Queryable } from '@memstream/store';
import { commandRefusal } from '../access-gate.js';
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
  const notFound = outcomeOf(event, 'failed', null, 'RESOURCE_NOT_FOUND', `session not found: ${sessionId}`);
  if (!(await arkSessionState(q, sessionId)).exists) return notFound;
  const refused = await commandRefusal(q, sessionId, event.actor, 'writer');
  if (refused?.code === 'RESOURCE_NOT_FOUND') return notFound;
  return (
    refused &&
    outcomeOf(
      event,
      'failed',
      null,
      'FORBIDDEN',
      `Your access to session ${sessionId} is ${refused.level}: completing needs writer or more`,
    )
  );
}

function completed(event: ArkSessionCompleted, first: boolean): RequestOutcome {
  return outcomeOf(event, 'stored', { status: first ? 'completed' : 'already_completed' }, null, null);
}

function outcomeOf(
  event: ArkSessionCompleted,
  status: 'stored' | 'failed',
  result: Record<string, unknown> | null,
  code: string | null,
  message: string | null,
): RequestOutcome {
  return {
    request_id: event.id,
    kind: 'conversation',
    status,
    group_id: event.data.session_id,
    message_id: null,
    duplicate: false,
    result,
    error_code: code,
    error_message: message,
  };
}
