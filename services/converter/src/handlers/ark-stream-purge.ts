import type { HandlerContext } from '@memstream/bus';
import { purgeArkStream, type Queryable } from '@memstream/store';
import type { ArkStreamPurged, RequestOutcome } from '@memstream/schemas';
import { commandDone, commandRefusalOutcome } from './command-outcomes.js';
import { applyOnce } from './apply-once.js';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';

/**
 * ARK stream purges: a session's relayed chunks and its completion mark are removed and the
 * outcome recorded in one transaction, so a redelivered purge answers what the first did. Access
 * is decided again here, as for every deletion: a person purges only sessions they manage (a
 * stranger's is not found); agents and a server without authentication purge any.
 */
export function handleArkStreamPurges(deps: ConverterDeps) {
  return async (events: readonly ArkStreamPurged[], ctx: HandlerContext): Promise<void> => {
    const outcomes = await applyOnce(deps.store, events, async (tx, event) => {
      const refused = await refusal(tx, event);
      if (refused) return refused;
      return commandDone(event.id, event.data.session_id, {
        deleted_chunks: await purgeArkStream(tx, event.data.session_id),
      });
    });
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ purges: events.length, correlationIds: ctx.correlationIds }, 'ark streams purged');
  };
}

/** A person purges only streams of sessions they manage; a stranger's is not found. */
async function refusal(q: Queryable, event: ArkStreamPurged): Promise<RequestOutcome | undefined> {
  const sessionId = event.data.session_id;
  return commandRefusalOutcome(q, {
    requestId: event.id,
    conversationId: sessionId,
    actor: event.actor,
    level: 'manager',
    exists: true, // no existence check: a session without streams simply has nothing to purge
    notFound: `stream not found: ${sessionId}`,
    forbidden: (level) => `Your access to session ${sessionId} is ${level}: purging its stream needs manager or more`,
  });
}
