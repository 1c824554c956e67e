import type { HandlerContext } from '@memstream/bus';
import { closeSpanIn } from '@memstream/episodes';
import { lastSequence, type Queryable } from '@memstream/store';
import { commandDone, commandRefusalOutcome } from './command-outcomes.js';
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
      return commandDone(event.id, event.data.group_id, { episode_ids: closed.map((e) => e.id) });
    });
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ flushes: events.length, correlationIds: ctx.correlationIds }, 'groups flushed');
  };
}

/** An unknown group, or one the person is not a writer of, as the read API answers them. */
async function refusal(q: Queryable, event: MemoriesFlushRequested): Promise<RequestOutcome | undefined> {
  const group = event.data.group_id;
  return commandRefusalOutcome(q, {
    requestId: event.id,
    conversationId: group,
    actor: event.actor,
    level: 'writer',
    exists: (await lastSequence(q, group)) !== undefined,
    notFound: `Group not found: ${group}`,
    forbidden: (level) => `Your access to ${group} is ${level}: this needs writer or more`,
  });
}
