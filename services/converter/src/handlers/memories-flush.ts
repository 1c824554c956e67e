import type { HandlerContext } from '@memstream/bus';
import { closeSpanIn } from '@memstream/episodes';
import { lastSequence, type Queryable } from '@memstream/store';
import { commandRefusal } from '../access-gate.js';
import { applyOnce } from './apply-once.js';
import type { MemoriesFlushRequested, RequestOutcome } from '@memstream/schemas';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';

/**
 * EverMemOS flushes: the group's open episode is closed now, with what is stored by then (the
 * writes before the flush on the group's partition), and the outcome recorded in the same
 * transaction, so a redelivered flush answers with the episodes the first one closed. The
 * extractor's sweep extracts them; the read API waits for that when the client asked it to.
 */
export function handleFlushes(deps: ConverterDeps) {
  return async (events: readonly MemoriesFlushRequested[], ctx: HandlerContext): Promise<void> => {
    const outcomes = await applyOnce(deps.store, events, async (tx, event) => {
      const refused = await refusal(tx, event);
      if (refused) return refused;
      const { closed } = await closeSpanIn(tx, event.data.group_id, deps.rules, 'flush');
      return outcomeOf(event, 'stored', { episode_ids: closed.map((e) => e.id) }, null, null);
    });
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ flushes: events.length, correlationIds: ctx.correlationIds }, 'groups flushed');
  };
}

/** An unknown group, or one the person is not a writer of, as the read API answers them. */
async function refusal(q: Queryable, event: MemoriesFlushRequested): Promise<RequestOutcome | undefined> {
  const group = event.data.group_id;
  const notFound = outcomeOf(event, 'failed', null, 'RESOURCE_NOT_FOUND', `Group not found: ${group}`);
  if ((await lastSequence(q, group)) === undefined) return notFound;
  const refused = await commandRefusal(q, group, event.actor, 'writer');
  if (refused?.code === 'RESOURCE_NOT_FOUND') return notFound;
  return (
    refused &&
    outcomeOf(
      event,
      'failed',
      null,
      'FORBIDDEN',
      `Your access to ${group} is ${refused.level}: this needs writer or more`,
    )
  );
}

function outcomeOf(
  event: MemoriesFlushRequested,
  status: 'stored' | 'failed',
  result: Record<string, unknown> | null,
  code: string | null,
  message: string | null,
): RequestOutcome {
  return {
    request_id: event.id,
    kind: 'conversation',
    status,
    group_id: event.data.group_id,
    message_id: null,
    duplicate: false,
    result,
    error_code: code,
    error_message: message,
  };
}
