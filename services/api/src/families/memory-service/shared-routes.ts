import { memoryServiceDocs as docs } from './docs.js';
import {
  ConversationBody,
  ConversationIdParams,
  CreateConversationRequest,
  ConversationPage,
  ListConversationsQuery,
  MemberParams,
  MembershipBody,
  MembershipList,
  MemoryServiceAcceptedBody,
  TransferBody,
  TransferOfferAnswer,
  TransferOwnershipRequest,
  UpdateMembershipRequest,
  type TransferRecipients,
} from '@memstream/schemas';
import { send, type MemoryServiceHandlers } from './handlers.js';
import type { Halves } from '../../shared/halves.js';

/**
 * The routes both layouts serve the same way, under their own base path; `recipients` is who the
 * layout's `/{id}/transfer-ownership` may offer ownership to (see transferRefusal).
 */
export function registerSharedRoutes(
  { writes, reads }: Halves,
  h: MemoryServiceHandlers,
  base: string,
  recipients: TransferRecipients,
): void {
  writes?.post(
    base,
    docs.route({
      summary: 'Create a conversation owned by the caller',
      body: CreateConversationRequest,
      emptyBody: {},
      responses: { 201: ConversationBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => send(reply, await h.create(request, request.body)),
  );
  reads?.get(
    base,
    docs.route({
      summary: 'Conversations the caller may read, in id order',
      querystring: ListConversationsQuery,
      responses: { 200: ConversationPage },
    }),
    async (request, reply) => send(reply, await h.list(request, request.query)),
  );
  reads?.get(
    `${base}/:conversationId`,
    docs.route({ summary: 'A conversation', params: ConversationIdParams, responses: { 200: ConversationBody } }),
    async (request, reply) => send(reply, await h.get(request, request.params.conversationId)),
  );
  writes?.delete(
    `${base}/:conversationId`,
    docs.route({
      summary: 'Delete the conversation and every fork of its tree (owner or manager)',
      params: ConversationIdParams,
      responses: { 202: MemoryServiceAcceptedBody, 204: 'Deleted' },
    }),
    async (request, reply) => send(reply, await h.remove(request, request.params.conversationId)),
  );

  reads?.get(
    `${base}/:conversationId/memberships`,
    docs.route({
      summary: 'Members and their levels (manager or owner)',
      params: ConversationIdParams,
      responses: { 200: MembershipList },
    }),
    async (request, reply) => send(reply, await h.memberships(request, request.params.conversationId)),
  );
  writes?.patch(
    `${base}/:conversationId/memberships/:userId`,
    docs.route({
      summary: "Change a member's level",
      params: MemberParams,
      body: UpdateMembershipRequest,
      responses: { 200: MembershipBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId, userId } = request.params;
      return send(reply, await h.changeMembership(request, conversationId, userId, 'update', request.body.accessLevel));
    },
  );
  writes?.delete(
    `${base}/:conversationId/memberships/:userId`,
    docs.route({
      summary: 'Revoke a member (not the owner); members may leave',
      params: MemberParams,
      responses: { 202: MemoryServiceAcceptedBody, 204: 'Revoked' },
    }),
    async (request, reply) => {
      const { conversationId, userId } = request.params;
      return send(reply, await h.changeMembership(request, conversationId, userId, 'revoke', null));
    },
  );

  const transfer = `${base}/:conversationId/transfer-ownership`;
  writes?.post(
    transfer,
    docs.route({
      summary:
        recipients === 'anyone'
          ? 'Offer ownership to any user but the owner (owner only); they accept or decline. A person who is not a member sees only the offer until they accept'
          : 'Offer ownership to a member (owner only); they accept or decline',
      params: ConversationIdParams,
      body: TransferOwnershipRequest,
      responses: { 202: TransferOfferAnswer },
    }),
    async (request, reply) => {
      const { conversationId } = request.params;
      return send(reply, await h.transfer(request, conversationId, request.body.newOwnerUserId, recipients));
    },
  );
  reads?.get(
    transfer,
    docs.route({
      summary: 'The pending ownership transfer (managers, the owner, and its recipient)',
      params: ConversationIdParams,
      responses: { 200: TransferBody },
    }),
    async (request, reply) => send(reply, await h.pendingTransfer(request, request.params.conversationId)),
  );
  for (const [action, accept] of [
    ['accept', true],
    ['decline', false],
  ] as const) {
    writes?.post(
      `${transfer}/${action}`,
      docs.route({
        summary: `${accept ? 'Accept' : 'Decline'} the ownership offered to you`,
        params: ConversationIdParams,
        responses: { 200: TransferBody, 202: MemoryServiceAcceptedBody },
      }),
      async (request, reply) => send(reply, await h.settle(request, request.params.conversationId, accept)),
    );
  }
}
