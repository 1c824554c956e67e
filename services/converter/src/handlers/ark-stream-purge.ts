import type { HandlerContext } from '@memstream/bus';
import { purgeArkStream, type Queryable } from '@memstream/store';
import type { ArkStreamPurged, RequestOutcome } from '@memstream/schemas';
import { commandRefusal } from '../access-gate.js';
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
      return outcomeOf(
        event,
        'stored',
        { deleted_chunks: await purgeArkStream(tx, event.data.session_id) },
        null,
        null,
      );
    });
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ purges: events.length, correlationIds: ctx.correlationIds }, 'ark streams purged');
  };
}

async function refusal(q: Queryable, event: ArkStreamPurged): Promise<RequestOutcome | undefined> {
  const sessionId = event.data.session_id;
  const refused = await commandRefusal(q, sessionId, event.actor, 'manager');
  if (refused === undefined) return undefined;
  if (refused.code === 'RESOURCE_NOT_FOUND')
    return outcomeOf(event, 'failed', null, 'RESOURCE_NOT_FOUND', `stream not found: ${sessionId}`);
  return outcomeOf(
    event,
    'failed',
    null,
    'FORBIDDEN',
    `Your access to session ${sessionId} is ${refused.level}: purging its stream needs manager or more`,
  );
}

function outcomeOf(
  event: ArkStreamPurged,
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
