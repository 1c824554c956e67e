import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '@memstream/errors';
import { audiencesOf } from '@memstream/auth';
import { principalOf } from '@memstream/http';
import {
  conversationInUse,
  erasureInProgress,
  findTransfer,
  listConversations,
  listGroupConversations,
  listMemberships,
  messagesByIds,
  pendingTransfer,
} from '@memstream/store';
import {
  revokeRefusal,
  shareRefusal,
  transferRefusal,
  updateRefusal,
  withdrawRefusal,
  UNDER_ERASURE,
  type CreateConversationRequest,
  type ForkRequest,
  type ListConversationsQuery,
  type ListMessagesQuery,
  type MemoryServiceMessage,
  type RequestOutcome,
  type TransferRecipients,
} from '@memstream/schemas';
import { conversationOps, newMessage, refusalError, type OpsDeps } from './conversation-ops.js';
import { StillApplying } from './outcome-or-still-applying.js';
import { conversationView, membershipView, transferView } from './views.js';
import type { MemoryServiceStoredMessage } from '@memstream/store';

type Out<T> = { status: number; body: T };

/** 202 for a write Kafka has that the converter had not applied when the wait ended. */
function accepted(pending: StillApplying, id: string): Out<Record<string, unknown>> {
  return { status: 202, body: { status: 'accepted', id, requestId: pending.requestId } };
}

export function send(reply: FastifyReply, out: Out<unknown>) {
  return reply.status(out.status).send(out.status === 204 ? undefined : out.body);
}

/**
 * The family's operations, shared by both layouts: each returns the status and the body in the
 * shape the layout's view function gives it.
 */
export function memoryServiceHandlers(deps: OpsDeps) {
  const ops = conversationOps(deps);

  const readBack = async (conversationId: string, ids: readonly string[]): Promise<MemoryServiceStoredMessage[]> =>
    (await messagesByIds(deps.store, conversationId, ids)).map((m) => ({
      conversation_id: m.conversation_id,
      seq: m.seq,
      message_id: m.message_id,
      content_text: m.content,
      created_at: new Date(m.created_at),
      ms: m.metadata['ms'] as MemoryServiceMessage,
    }));

  const view = async (request: FastifyRequest, id: string, status = 200) => {
    const { conversation, standing } = await ops.require(request, id, 'reader', 'Reading');
    return { status, body: conversationView(conversation, standing) };
  };

  return {
    ops,

    async create(request: FastifyRequest, body: z.infer<typeof CreateConversationRequest>) {
      const id = randomUUID();
      const sent = await ops.send(request, 'conversation.created', {
        conversation_id: id,
        group_id: id,
        title: body.title ?? null,
        metadata: body.metadata ?? {},
        owner_user_id: ops.ownerFor(request),
        fork: null,
      });
      return sent instanceof StillApplying ? accepted(sent, id) : view(request, id, 201);
    },

    get: (request: FastifyRequest, id: string) => view(request, id),

    async list(request: FastifyRequest, query: z.infer<typeof ListConversationsQuery>) {
      const principal = principalOf(request);
      const viewer = principal.kind === 'user' ? principal.userId : undefined;
      const { items, more } = await listConversations(deps.store, {
        viewer,
        after: query.after,
        limit: query.limit,
        query: query.query,
        mode: query.mode,
      });
      const standing = viewer === undefined ? ('unrestricted' as const) : undefined;
      return {
        status: 200,
        body: { data: items.map((c) => conversationView(c, standing)), nextCursor: more ? items.at(-1)!.id : null },
      };
    },

    async remove(request: FastifyRequest, id: string) {
      const { conversation } = await ops.require(request, id, 'manager', 'Deleting');
      const sent = await ops.send(request, 'conversation.deleted', {
        conversation_id: id,
        group_id: conversation.group_id,
      });
      return sent instanceof StillApplying ? accepted(sent, id) : { status: 204, body: undefined };
    },

    /**
     * Messages of the view. A person sees history without agent-only messages; an agent asking
     * for no channel gets every channel it may read (its own memory, never another agent's), as
     * the memory-service lists them for an API key.
     */
    async messages(request: FastifyRequest, id: string, query: z.infer<typeof ListMessagesQuery>, userView: boolean) {
      await ops.require(request, id, 'reader', 'Reading');
      const principal = principalOf(request);
      const agent = principal.kind === 'agent' ? principal.clientId : undefined;
      const asAgent = agent !== undefined || (principal.kind === 'local' && !userView);
      const channel = query.channel ?? (asAgent ? undefined : 'history');
      if (channel !== 'history' && !asAgent) {
        throw new AppError('FORBIDDEN', `The ${channel} channel is an agent's: it needs an API key`);
      }
      const page = await ops.page(
        id,
        {
          channel,
          hideAgentOnly: userView || principal.kind === 'user',
          audiences: audiencesOf(principal),
          ...(channel === 'memory' ? { clientId: agent ?? 'local', epoch: query.epoch } : {}),
        },
        query.after,
        query.limit,
      );
      return page;
    },

    /** Appends messages (one event, so all or none), creating the conversation first when `create` says so. */
    async append(
      request: FastifyRequest,
      id: string,
      messages: MemoryServiceMessage[],
      create: { owner: string | null; title?: string | null } | undefined,
      title?: string,
    ): Promise<Out<unknown> & { stored?: MemoryServiceStoredMessage[] }> {
      // Writing to an unused id creates the conversation (code layout); anything that exists needs writer.
      if (!create || (await conversationInUse(deps.store, id))) await ops.require(request, id, 'writer', 'Appending');
      const sent = await ops.send(request, 'conversation.messages.appended', {
        conversation_id: id,
        group_id: await ops.groupOf(id),
        messages,
        create_if_missing: create !== undefined,
        owner_user_id: create?.owner ?? null,
        ...(title === undefined ? {} : { title }),
        ...(create?.title ? { created_title: create.title } : {}),
      });
      if (sent instanceof StillApplying) return accepted(sent, messages[0]!.message_id);
      return {
        status: 201,
        body: undefined,
        stored: await readBack(
          id,
          messages.map((m) => m.message_id),
        ),
      };
    },

    async fork(request: FastifyRequest, id: string, messageId: string, body: z.infer<typeof ForkRequest>) {
      const { conversation } = await ops.require(request, id, 'writer', 'Forking');
      const forkId = randomUUID();
      const sent = await ops.send(request, 'conversation.created', {
        conversation_id: forkId,
        group_id: conversation.group_id,
        title: body.title ?? conversation.title,
        metadata: conversation.metadata,
        owner_user_id: null,
        fork: { from_conversation_id: id, at_message_id: messageId },
      });
      if (sent instanceof StillApplying) return accepted(sent, forkId);
      if (body.newMessage) {
        const principal = principalOf(request);
        const first = newMessage({
          role: 'user',
          content: [{ type: 'text', text: body.newMessage.content }],
          metadata: body.newMessage.metadata ?? {},
          user_id: principal.kind === 'agent' ? null : principal.userId,
        });
        await ops.send(request, 'conversation.messages.appended', {
          conversation_id: forkId,
          group_id: conversation.group_id,
          messages: [first],
          create_if_missing: false,
          owner_user_id: null,
        });
      }
      return view(request, forkId, 201);
    },

    async forks(request: FastifyRequest, id: string) {
      const { conversation } = await ops.require(request, id, 'reader', 'Reading');
      return { current: id, forks: await listGroupConversations(deps.store, conversation.group_id) };
    },

    async memberships(request: FastifyRequest, id: string) {
      const { conversation } = await ops.require(request, id, 'manager', 'Listing members');
      return {
        status: 200,
        body: { data: (await listMemberships(deps.store, conversation.group_id)).map((m) => membershipView(id, m)) },
      };
    },

    async changeMembership(
      request: FastifyRequest,
      id: string,
      userId: string,
      change: 'share' | 'update' | 'revoke',
      level: 'manager' | 'writer' | 'reader' | 'owner' | null,
    ) {
      const held = await ops.standing(request, id);
      if (held === undefined) return ops.refuseStranger(id, 'Changing access');
      const groupId = await ops.groupOf(id);
      const target = (await ops.membershipOf(groupId, userId))?.access_level;
      const principal = principalOf(request);
      const self = principal.kind === 'user' && principal.userId === userId;
      const refused =
        change === 'share'
          ? shareRefusal(held, level!, target)
          : change === 'update'
            ? updateRefusal(held, level!, target)
            : revokeRefusal(held, target, self);
      if (refused) throw refusalError(refused, refused.message.startsWith('Membership') ? userId : id);
      await ops.require(request, id, self && change === 'revoke' ? 'reader' : 'manager', 'Changing access');
      // answered here at once; the converter checks again, where it counts
      if (change !== 'revoke' && (await erasureInProgress(deps.store, userId))) throw refusalError(UNDER_ERASURE, id);
      const sent = await ops.send(request, 'conversation.membership.changed', {
        conversation_id: id,
        group_id: groupId,
        user_id: userId,
        change,
        access_level: level,
      });
      if (sent instanceof StillApplying) return accepted(sent, id);
      if (change === 'revoke') return { status: 204, body: undefined };
      const result = (sent as RequestOutcome).result as { user_id: string; access_level: 'owner'; created_at: string };
      return {
        status: change === 'share' ? 201 : 200,
        body: membershipView(id, { ...result, created_at: new Date(result.created_at) }),
      };
    },

    /** An offer of ownership; `recipients` is the rule of the route it came by (see transferRefusal). */
    async transfer(request: FastifyRequest, id: string, newOwner: string, recipients: TransferRecipients) {
      const { conversation, standing } = await ops.require(request, id, 'reader', 'Reading');
      const recipientLevel = (await ops.membershipOf(conversation.group_id, newOwner))?.access_level;
      const refused = transferRefusal(standing, newOwner, conversation.owner_user_id, recipientLevel, recipients);
      if (refused) throw refusalError(refused, id);
      if (await erasureInProgress(deps.store, newOwner)) throw refusalError(UNDER_ERASURE, id);
      const pending = await pendingTransfer(deps.store, conversation.group_id);
      if (pending) throw pendingConflict(pending.id);
      const transferId = randomUUID();
      const sent = await ops.send(request, 'conversation.ownership.transfer', {
        conversation_id: id,
        group_id: conversation.group_id,
        action: 'request',
        transfer_id: transferId,
        new_owner_user_id: newOwner,
        recipients,
      });
      if (sent instanceof StillApplying) return accepted(sent, transferId);
      return { status: 202, body: transferOf(sent, id) };
    },

    /** The pending transfer, for its owner side and its recipient (who may not be a member yet). */
    async pendingTransfer(request: FastifyRequest, id: string) {
      const groupId = await ops.groupOf(id);
      const pending = await pendingTransfer(deps.store, groupId);
      const principal = principalOf(request);
      const isRecipient = pending !== undefined && principal.kind === 'user' && pending.to_user_id === principal.userId;
      if (!isRecipient) await ops.require(request, id, 'manager', 'Reading transfers');
      if (!pending)
        throw new AppError('RESOURCE_NOT_FOUND', `No pending ownership transfer: ${id}`, {
          details: { resource: 'transfer', id },
        });
      return { status: 200, body: transferView(pending) };
    },

    /** DELETE /v1/ownership-transfers/{id}, as the memory-service has it: the owner withdraws the offer, its recipient declines it. */
    async withdraw(request: FastifyRequest, transferId: string) {
      const transfer = await findTransfer(deps.store, transferId);
      if (transfer?.status !== 'pending')
        throw new AppError('RESOURCE_NOT_FOUND', `No pending ownership transfer: ${transferId}`, {
          details: { resource: 'transfer', id: transferId },
        });
      const principal = principalOf(request);
      const isRecipient = principal.kind === 'user' && principal.userId === transfer.to_user_id;
      const refused = withdrawRefusal(await ops.standing(request, transfer.conversation_id), isRecipient);
      if (refused) throw refusalError(refused, transferId);
      const sent = await ops.send(request, 'conversation.ownership.transfer', {
        conversation_id: transfer.conversation_id,
        group_id: transfer.group_id,
        action: 'withdraw',
        transfer_id: transferId,
        new_owner_user_id: null,
      });
      return sent instanceof StillApplying ? accepted(sent, transferId) : { status: 204, body: undefined };
    },

    /**
     * Only the offer's recipient settles it: anyone else who may know of it gets 403, as from the
     * memory-service. `transferId` names the offer answered (the later API does), so only that one is.
     */
    async settle(request: FastifyRequest, id: string, accept: boolean, transferId: string | null = null) {
      const groupId = await ops.groupOf(id);
      const current = await pendingTransfer(deps.store, groupId);
      const pending = transferId === null || current?.id === transferId ? current : undefined;
      const principal = principalOf(request);
      const recipient =
        principal.kind === 'user' ? principal.userId : principal.kind === 'local' ? pending?.to_user_id : undefined;
      if (pending && pending.to_user_id !== recipient) {
        if ((await ops.standing(request, id)) === undefined) await ops.refuseStranger(id, 'Settling a transfer');
        throw new AppError(
          'FORBIDDEN',
          `Only the recipient may ${accept ? 'accept' : 'decline'} an ownership transfer`,
        );
      }
      const sent = await ops.send(request, 'conversation.ownership.transfer', {
        conversation_id: id,
        group_id: groupId,
        action: accept ? 'accept' : 'decline',
        transfer_id: transferId,
        new_owner_user_id: null,
      });
      if (sent instanceof StillApplying) return accepted(sent, id);
      return { status: 200, body: transferOf(sent, id) };
    },
  };
}

export type MemoryServiceHandlers = ReturnType<typeof memoryServiceHandlers>;

/** A second offer while one is pending: 409 naming the pending one, as the memory-service answers. */
function pendingConflict(existingTransferId: string): AppError {
  return new AppError('CONFLICT', `An ownership transfer is already pending: ${existingTransferId}`, {
    details: { existingTransferId },
  });
}

function transferOf(outcome: RequestOutcome, conversationId: string) {
  const r = outcome.result as {
    id: string;
    from_user_id: string;
    to_user_id: string;
    status: 'pending';
    created_at: string;
  };
  return transferView({ ...r, conversation_id: conversationId, created_at: new Date(r.created_at) });
}
