import type { HandlerContext } from '@memstream/bus';
import { forgetMessagesIn, type ForgetResult, type Queryable } from '@memstream/store';
import { applyOnce } from './apply-once.js';
import { commandRefusal } from '../access-gate.js';
import type { MemoriesDeleted, RequestOutcome } from '@memstream/schemas';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';

/**
 * EverMemOS deletions: the matching messages, their search rows and the memories made from them
 * are forgotten, and the outcome recorded, in one transaction, so a redelivered deletion keeps its
 * first answer (what it deleted) instead of finding nothing the second time. A person forgets
 * only in groups they manage or own: a group they name at a lower level is refused; across
 * groups, the others are left out. Episodes that keep some messages are left pending at a new
 * version, and the extractor's sweep extracts them again.
 */
export function handleMemoriesDeletions(deps: ConverterDeps) {
  return async (events: readonly MemoriesDeleted[], ctx: HandlerContext): Promise<void> => {
    const outcomes = await applyOnce(
      deps.store,
      events,
      async (tx, event) => (await refusal(tx, event)) ?? outcomeOfForgetting(event, await forget(tx, event)),
    );
    await announce(deps.fanout, outcomes, ctx.log);
    ctx.log.info({ deletions: events.length, correlationIds: ctx.correlationIds }, 'memories deleted');
  };
}

function forget(tx: Queryable, event: MemoriesDeleted): Promise<ForgetResult> {
  const { event_id, message_id, group_id, user_id } = event.data;
  const managedBy = event.actor?.kind === 'user' ? event.actor.id : undefined;
  return forgetMessagesIn(tx, {
    eventId: event_id,
    messageId: message_id,
    conversationId: group_id,
    senderId: user_id,
    managedBy,
  });
}

async function refusal(q: Queryable, event: MemoriesDeleted): Promise<RequestOutcome | undefined> {
  const group = event.data.group_id;
  if (group === undefined) return undefined;
  const refused = await commandRefusal(q, group, event.actor, 'manager');
  if (refused?.code === 'RESOURCE_NOT_FOUND')
    return failed(event, 'RESOURCE_NOT_FOUND', 'No memories matched the filter');
  return (
    refused &&
    failed(event, 'FORBIDDEN', `Your access to ${group} is ${refused.level}: forgetting needs manager or owner`)
  );
}

function outcomeOfForgetting(event: MemoriesDeleted, r: ForgetResult): RequestOutcome {
  if (r.deletedMessages === 0) return failed(event, 'RESOURCE_NOT_FOUND', 'No memories matched the filter');
  return {
    ...base(event),
    status: 'stored',
    result: {
      deleted_messages: r.deletedMessages,
      deleted_memories: r.deletedMemories,
      episodes_reextracting: r.episodesReopened,
      episodes_deleted: r.episodesDeleted,
    },
  };
}

function failed(event: MemoriesDeleted, code: string, message: string): RequestOutcome {
  return { ...base(event), status: 'failed', error_code: code, error_message: message };
}

function base(event: MemoriesDeleted): RequestOutcome {
  return {
    request_id: event.id,
    kind: 'message',
    status: 'stored',
    group_id: event.data.group_id ?? null,
    message_id: event.data.message_id ?? null,
    duplicate: false,
    result: null,
    error_code: null,
    error_message: null,
  };
}
