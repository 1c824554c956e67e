import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import {
  ConversationBody,
  ConversationIdParams,
  CreateAgentMessagesRequest,
  CreateUserMessageRequest,
  DocumentForkList,
  DocumentMessageBody,
  DocumentMessageList,
  DocumentMessagePage,
  ForkRequest,
  ListMessagesQuery,
  MembershipBody,
  MessageIdParams,
  MemoryServiceAcceptedBody,
  ShareRequest,
} from '@memstream/schemas';
import { newMessage } from './conversation-ops.js';
import { send, type MemoryServiceHandlers } from './handlers.js';
import { registerSharedRoutes } from './shared-routes.js';
import { documentMessageView } from './views.js';
import type { Halves } from '../../shared/halves.js';

/**
 * The design document's layout: `/v1/user/...` for people (and agents acting for them) and
 * `/v1/agent/...` for agents. The user view of messages leaves out agent-only ones.
 */
export function registerDocumentRoutes({ writes, reads }: Halves, h: MemoryServiceHandlers): void {
  const base = '/v1/user/conversations';
  // The document layout keeps the platform's stricter rule: only a member is offered ownership.
  registerSharedRoutes({ writes, reads }, h, base, 'members');

  reads?.get(
    `${base}/:conversationId/messages`,
    docs.route({
      summary: "A conversation's messages as its people see them",
      params: ConversationIdParams,
      querystring: ListMessagesQuery.pick({ after: true, limit: true }),
      responses: { 200: DocumentMessagePage },
    }),
    async (request) => {
      const { conversationId } = request.params;
      const query = request.query;
      const page = await h.messages(request, conversationId, { ...query, channel: 'history', epoch: 'latest' }, true);
      return { data: page.items.map(documentMessageView), nextCursor: page.nextCursor };
    },
  );

  writes?.post(
    `${base}/:conversationId/messages`,
    docs.route({
      summary: 'Append a message from the caller (role user, visible to people)',
      params: ConversationIdParams,
      body: CreateUserMessageRequest,
      responses: { 201: DocumentMessageBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId } = request.params;
      const body = request.body;
      const principal = principalOf(request);
      const message = newMessage({
        role: 'user',
        content: [{ type: 'text', text: body.content }],
        metadata: body.metadata ?? {},
        user_id: principal.kind === 'agent' ? null : principal.userId,
        client_id: principal.kind === 'agent' ? principal.clientId : null,
      });
      const out = await h.append(request, conversationId, [message], undefined);
      return send(reply, out.stored ? { status: 201, body: documentMessageView(out.stored[0]!) } : out);
    },
  );

  writes?.post(
    `${base}/:conversationId/messages/:messageId/fork`,
    docs.route({
      summary: 'Fork at a user message: the new conversation shows the history before it, then its own',
      params: MessageIdParams,
      body: ForkRequest,
      emptyBody: {},
      responses: { 201: ConversationBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId, messageId } = request.params;
      return send(reply, await h.fork(request, conversationId, messageId, request.body));
    },
  );

  reads?.get(
    `${base}/:conversationId/forks`,
    docs.route({
      summary: 'Every conversation of the fork tree',
      params: ConversationIdParams,
      responses: { 200: DocumentForkList },
    }),
    async (request) => {
      const { conversationId } = request.params;
      const { current, forks } = await h.forks(request, conversationId);
      return {
        data: forks.map((c) => ({
          conversationId: c.group_id,
          forkId: c.id,
          forkedFromMessageId: c.forked_at_message_id,
          forkedFromConversationId: c.forked_at_conversation_id,
          title: c.title,
          createdAt: c.created_at.toISOString(),
          isCurrentFork: c.id === current,
        })),
      };
    },
  );

  writes?.post(
    `${base}/:conversationId/memberships`,
    docs.route({
      summary: 'Share with a user, at most at your own level and never as owner',
      params: ConversationIdParams,
      body: ShareRequest,
      responses: { 201: MembershipBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId } = request.params;
      const body = request.body;
      return send(reply, await h.changeMembership(request, conversationId, body.userId, 'share', body.accessLevel));
    },
  );

  writes?.post(
    '/v1/agent/conversations/:conversationId/messages',
    docs.route({
      summary: 'Append messages in bulk, any role and visibility (agents)',
      params: ConversationIdParams,
      body: CreateAgentMessagesRequest,
      responses: { 201: DocumentMessageList, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId } = request.params;
      const body = request.body;
      const principal = principalOf(request);
      if (principal.kind === 'user') throw new AppError('FORBIDDEN', 'The agent API needs an API key');
      const clientId = principal.kind === 'agent' ? principal.clientId : 'local';
      const messages = body.messages.map((m) =>
        newMessage({
          role: m.role,
          visibility: m.visibility,
          channel: m.channel,
          content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
          metadata: m.metadata ?? {},
          parent_message_id: m.parentMessageId ?? null,
          user_id: m.userId ?? null,
          client_id: clientId,
        }),
      );
      const out = await h.append(request, conversationId, messages, undefined);
      return send(reply, out.stored ? { status: 201, body: { data: out.stored.map(documentMessageView) } } : out);
    },
  );
}
