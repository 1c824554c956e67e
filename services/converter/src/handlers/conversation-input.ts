import { publishEvents, type HandlerContext } from '@memstream/bus';
import type { Fanout } from '@memstream/fanout';
import type { Logger } from '@memstream/logging';
import {
  appendMessages,
  setConversationTitle,
  titleUntitledConversation,
  claimConversation,
  conversationInUse,
  deleteConversationGroup,
  erasureInProgress,
  findConversation,
  findInView,
  findMembership,
  findTransfer,
  findRequestOutcomes,
  groupOfConversation,
  insertConversation,
  messageBefore,
  pendingTransfer,
  recordRequestOutcomes,
  removeMembership,
  requestTransfer,
  restoreConversationGroup,
  setMembership,
  settleTransfer,
  standingOf,
  viewSegments,
  type AppendResult,
  type Queryable,
} from '@memstream/store';
import {
  ACCESS_CHANGED_CHANNEL,
  TOPICS,
  levelRefusal,
  type AccessChanged,
  type KaosInput,
  revokeRefusal,
  senderRefusal,
  shareRefusal,
  transferRefusal,
  updateRefusal,
  withdrawRefusal,
  type ConversationInput,
  isKaosInput,
  historyTitle,
  type MessageStored,
  type Refusal,
  type RequestOutcome,
  UNDER_ERASURE,
} from '@memstream/schemas';
import { fromMemoryServiceMessage } from '../mappers/memory-service.js';
import { storedEvent } from '../stored-event.js';
import { publishLiveMessages } from '../live-messages.js';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';
import { applyKaos } from './kaos-input.js';

type Applied = { outcome: RequestOutcome | undefined; stored: AppendResult[] };

/**
 * The memory-service family's writes. Each event is applied in a transaction of its own, after
 * the access rules are checked against the memberships as they are now; its outcome (stored, or
 * refused with the reason) is recorded in the same transaction. A redelivered event finds its
 * outcome and changes nothing; a redelivered append finds its messages and publishes them again,
 * in case the first delivery died between the commit and the publish.
 */
export function handleConversationBatch(deps: ConverterDeps) {
  return async (events: readonly ConversationInput[], ctx: HandlerContext): Promise<void> => {
    const outcomes: RequestOutcome[] = [];
    const stored: MessageStored[] = [];
    const accessChanged = new Set<string>();
    for (const event of events) {
      const earlier = (await findRequestOutcomes(deps.store, [event.id])).get(event.id);
      // Only an append that was stored is applied again (to publish it again); anything else keeps its outcome.
      const republishes = event.type === 'conversation.messages.appended' || event.type === 'kaos.events.appended';
      // A redelivered change is told again: the first delivery may have died between its commit and the notice.
      if (earlier?.status === 'stored' && mayTakeAccess(event)) accessChanged.add(event.data.group_id);
      if (earlier && (!republishes || earlier.status === 'failed')) {
        outcomes.push(earlier);
        continue;
      }
      const applied = await deps.store.transaction((tx) => apply(tx, event, earlier !== undefined));
      if (applied.outcome?.status === 'stored' && mayTakeAccess(event)) accessChanged.add(event.data.group_id);
      outcomes.push(earlier ?? applied.outcome ?? (await findRequestOutcomes(deps.store, [event.id])).get(event.id)!);
      for (const r of applied.stored) stored.push(storedEvent(r.message, event.correlation_id));
    }
    await Promise.all([
      publishEvents(deps.bus, TOPICS.messagesStored, stored),
      announce(deps.fanout, outcomes.filter(Boolean), ctx.log),
      announceAccessChanges(deps.fanout, [...accessChanged], ctx.log),
      publishLiveMessages(
        deps.fanout,
        stored.map((e) => e.data),
        ctx.log,
      ),
    ]);
    ctx.log.info(
      { events: events.length, messages: stored.length, correlationIds: ctx.correlationIds },
      'conversation events applied',
    );
  };
}

/**
 * Changes after which a person may reach less of the group than before (a member removed or
 * lowered, the group deleted, an owner demoted by a transfer): streams they opened must look again.
 */
function mayTakeAccess(event: ConversationInput): event is Exclude<ConversationInput, KaosInput> {
  switch (event.type) {
    case 'conversation.membership.changed':
      return event.data.change !== 'share';
    case 'conversation.deleted':
      return true;
    case 'conversation.admin.changed':
      return event.data.action === 'delete';
    case 'conversation.ownership.transfer':
      return event.data.action === 'accept';
    default:
      return false;
  }
}

/** Best effort, like every fan-out message: a replica that misses it finds the change on its periodic re-check. */
async function announceAccessChanges(fanout: Fanout, groupIds: readonly string[], log: Logger): Promise<void> {
  if (groupIds.length === 0) return;
  try {
    await fanout.publish(ACCESS_CHANGED_CHANNEL, JSON.stringify({ group_ids: [...groupIds] } satisfies AccessChanged));
  } catch (err) {
    log.warn(
      { err, groups: groupIds.length },
      'could not announce access changes; open streams find them on their next re-check',
    );
  }
}

/** `replay`: the event was applied before (its outcome stands), and is applied again only to publish what it stored. */
async function apply(tx: Queryable, event: ConversationInput, replay: boolean): Promise<Applied> {
  const done = async (result: Record<string, unknown>): Promise<Applied> => ({
    outcome: await record(tx, event, { result }),
    stored: [],
  });
  const refuse = async (refusal: Refusal): Promise<Applied> => ({
    outcome: await record(tx, event, { refusal }),
    stored: [],
  });
  if (isKaosInput(event)) {
    const kaos = await applyKaos(tx, event, replay);
    return { outcome: await record(tx, event, kaos), stored: kaos.stored };
  }
  const data = event.data;

  switch (event.type) {
    case 'conversation.created': {
      const { fork } = event.data;
      if (!fork) {
        // A replay never gets here (its outcome stands), so an id in use is one a direct producer chose badly.
        if (await conversationInUse(tx, data.conversation_id))
          return refuse({ code: 'CONFLICT', message: `Conversation id in use: ${data.conversation_id}` });
        await insertConversation(tx, {
          id: data.conversation_id,
          groupId: data.group_id,
          title: event.data.title,
          metadata: event.data.metadata,
          fork: null,
        });
        if (event.data.owner_user_id) await claimConversation(tx, data.conversation_id, event.data.owner_user_id);
        return done({ conversation_id: data.conversation_id });
      }
      const refused = levelRefusal(await standingOf(tx, event.actor, fork.from_conversation_id), 'writer', 'Forking');
      if (refused) return refuse(refused);
      const group = await groupOfConversation(tx, fork.from_conversation_id);
      const segments = await viewSegments(tx, fork.from_conversation_id);
      const at = group === undefined ? undefined : await findInView(tx, segments, fork.at_message_id);
      if (!at) return refuse({ code: 'RESOURCE_NOT_FOUND', message: `Message not found: ${fork.at_message_id}` });
      if (at.ms.channel !== 'history' || at.ms.role !== 'user')
        return refuse({ code: 'INVALID_PARAMETER', message: 'A fork starts at a user message of the history channel' });
      const before = await messageBefore(tx, segments, at);
      await insertConversation(tx, {
        id: data.conversation_id,
        groupId: group!,
        title: event.data.title,
        metadata: event.data.metadata,
        fork: {
          fromConversationId: fork.from_conversation_id,
          atMessageId: before?.message_id ?? null,
          source: before ? { conversationId: before.conversation_id, seq: before.seq } : null,
        },
      });
      return done({ conversation_id: data.conversation_id });
    }

    case 'conversation.messages.appended': {
      const impersonating = event.data.messages
        .map((m) => senderRefusal(event.actor, m.user_id, 'userId'))
        .find((r) => r !== undefined);
      if (impersonating) return refuse({ code: 'FORBIDDEN', message: impersonating });
      const found = await findConversation(tx, data.conversation_id);
      let exists = found !== undefined;
      let untitled = found?.title === null;
      let owner = found?.owner_user_id ?? null;
      // Only an id nobody uses in any family is created: one an ARK session or a group holds keeps its members.
      if (!exists && event.data.create_if_missing && !(await conversationInUse(tx, data.conversation_id))) {
        const title = event.data.created_title ?? null;
        exists = await insertConversation(tx, {
          id: data.conversation_id,
          groupId: data.group_id,
          title,
          metadata: {},
          fork: null,
        });
        untitled = exists && title === null;
        owner = event.data.owner_user_id ?? null;
        if (exists && event.data.owner_user_id)
          await claimConversation(tx, data.conversation_id, event.data.owner_user_id);
      }
      if (!exists)
        return refuse({ code: 'RESOURCE_NOT_FOUND', message: `Conversation not found: ${data.conversation_id}` });
      const refused = levelRefusal(await standingOf(tx, event.actor, data.conversation_id), 'writer', 'Appending');
      if (refused) return refuse(refused);
      const results = await appendMessages(
        tx,
        event.data.messages.map((m, i) => ({
          // the stored conversation's group (a fork's is its root's), else the one just created under the event's
          message: fromMemoryServiceMessage(data.conversation_id, m, found?.group_id ?? data.group_id),
          ...(i === 0 ? { requestId: event.id } : {}),
        })),
      );
      if (event.data.title) await setConversationTitle(tx, data.conversation_id, event.data.title);
      else if (untitled) {
        // As the memory-service does: an untitled conversation (begun on the memory channel, or
        // created without a title) takes its title from the first history message appended to it,
        // here only from its owner's (see historyTitle).
        const title = historyTitle(event.data.messages, owner);
        if (title !== undefined) await titleUntitledConversation(tx, data.conversation_id, title);
      }
      // appendMessages recorded the outcome with the first message (or found the earlier one)
      return { outcome: undefined, stored: results };
    }

    case 'conversation.deleted': {
      const refused = levelRefusal(await standingOf(tx, event.actor, data.conversation_id), 'manager', 'Deleting');
      if (refused) return refuse(refused);
      return done({ deleted: await deleteConversationGroup(tx, data.group_id) });
    }

    case 'conversation.admin.changed': {
      // The API found the conversation before publishing; a change another admin made meanwhile is told as it stands.
      if (event.data.action === 'delete') {
        const deleted = await deleteConversationGroup(tx, data.group_id);
        if (deleted === 0)
          return refuse({ code: 'RESOURCE_NOT_FOUND', message: `Conversation not found: ${data.conversation_id}` });
        return done({ conversations: deleted });
      }
      const restored = await restoreConversationGroup(tx, data.group_id);
      if (restored === 0)
        return refuse({ code: 'CONFLICT', message: `Conversation ${data.conversation_id} is not deleted` });
      return done({ conversations: restored });
    }

    case 'conversation.membership.changed': {
      const standing = await standingOf(tx, event.actor, data.conversation_id);
      const target = (await findMembership(tx, data.group_id, event.data.user_id))?.access_level;
      const level = event.data.access_level;
      const refused =
        event.data.change === 'share'
          ? shareRefusal(standing, level!, target)
          : event.data.change === 'update'
            ? updateRefusal(standing, level!, target)
            : revokeRefusal(standing, target, event.actor?.kind === 'user' && event.actor.id === event.data.user_id);
      if (refused) return refuse(refused);
      // A revoke only takes access away, so it stays allowed (and the erasure removes its record).
      if (event.data.change !== 'revoke' && (await erasureInProgress(tx, event.data.user_id)))
        return refuse(UNDER_ERASURE);
      if (event.data.change === 'revoke') {
        await removeMembership(tx, data.group_id, event.data.user_id);
        return done({ revoked: true });
      }
      const row = await setMembership(tx, data.group_id, event.data.user_id, level!);
      return done({ user_id: row.user_id, access_level: row.access_level, created_at: row.created_at.toISOString() });
    }

    case 'conversation.ownership.transfer': {
      if (event.data.action === 'request') {
        const standing = await standingOf(tx, event.actor, data.conversation_id);
        const owner = (await findConversation(tx, data.conversation_id))?.owner_user_id ?? null;
        const newOwner = event.data.new_owner_user_id!;
        const refused = transferRefusal(
          standing,
          newOwner,
          owner,
          (await findMembership(tx, data.group_id, newOwner))?.access_level,
          event.data.recipients ?? 'members',
        );
        if (refused) return refuse(refused);
        if (await erasureInProgress(tx, newOwner)) return refuse(UNDER_ERASURE);
        if (owner === null)
          return refuse({ code: 'CONFLICT', message: 'The conversation has no owner to transfer from' });
        const pending = await pendingTransfer(tx, data.group_id);
        if (pending)
          return refuse({ code: 'CONFLICT', message: `An ownership transfer is already pending: ${pending.id}` });
        const t = await requestTransfer(tx, {
          id: event.data.transfer_id!,
          groupId: data.group_id,
          conversationId: data.conversation_id,
          from: owner,
          to: newOwner,
        });
        return done(transferResult(t));
      }
      if (event.data.action === 'withdraw') {
        const transfer = await findTransfer(tx, event.data.transfer_id!, data.group_id);
        if (transfer?.status !== 'pending')
          return refuse({ code: 'RESOURCE_NOT_FOUND', message: 'No pending ownership transfer' });
        const isRecipient = event.actor?.kind === 'user' && event.actor.id === transfer.to_user_id;
        const refused = withdrawRefusal(await standingOf(tx, event.actor, data.conversation_id), isRecipient);
        if (refused) return refuse(refused);
        return done(transferResult(await settleTransfer(tx, transfer, isRecipient ? 'declined' : 'withdrawn')));
      }
      const pending = await pendingTransfer(tx, data.group_id);
      // Only the recipient settles a transfer; an agent cannot accept ownership for a person. A write with no actor
      // (the local user, with authentication off) is the recipient's own.
      const recipient =
        event.actor === undefined ? pending?.to_user_id : event.actor.kind === 'user' ? event.actor.id : undefined;
      // An answer naming its transfer (POST /v1/ownership-transfers/{id}/accept) settles that one only, not a later offer.
      const named = event.data.transfer_id;
      if (!pending || pending.to_user_id !== recipient || (named !== null && pending.id !== named))
        return refuse({ code: 'RESOURCE_NOT_FOUND', message: 'No pending ownership transfer to you' });
      return done(
        transferResult(await settleTransfer(tx, pending, event.data.action === 'accept' ? 'accepted' : 'declined')),
      );
    }
  }
}

function transferResult(t: {
  id: string;
  from_user_id: string;
  to_user_id: string;
  status: string;
  created_at: Date;
}): Record<string, unknown> {
  return {
    id: t.id,
    from_user_id: t.from_user_id,
    to_user_id: t.to_user_id,
    status: t.status,
    created_at: t.created_at.toISOString(),
  };
}

async function record(
  tx: Queryable,
  event: ConversationInput,
  how: { result?: Record<string, unknown>; refusal?: Refusal },
): Promise<RequestOutcome> {
  const outcome: RequestOutcome = {
    request_id: event.id,
    kind: 'conversation',
    status: how.refusal ? 'failed' : 'stored',
    // KAOS events name a session, not a conversation: their ordering key stands for it.
    group_id: 'conversation_id' in event.data ? event.data.conversation_id : event.data.group_id,
    message_id: null,
    duplicate: false,
    result: how.result ?? null,
    error_code: how.refusal?.code ?? null,
    error_message: how.refusal?.message ?? null,
  };
  // kept in the event's group (its ordering key): a fork's outcome sits with its root's rows
  await recordRequestOutcomes(tx, [outcome], [event.data.group_id]);
  return outcome;
}
