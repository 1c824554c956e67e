import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import {
  CodeForkList,
  CodeMessageBody,
  CodeMessagePage,
  ConversationBody,
  ConversationIdParams,
  CreateMessageRequest,
  ForkRequest,
  ListMessagesQuery,
  MembershipBody,
  MessageIdParams,
  MemoryServiceAcceptedBody,
  ShareRequest,
  firstText,
  historyTitle,
} from '@memstream/schemas';
import { newMessage } from './conversation-ops.js';
import { send, type MemoryServiceHandlers } from './handlers.js';
import { registerSharedRoutes } from './shared-routes.js';
import { codeMessageView, forkView } from './views.js';
import type { Halves } from '../../shared/halves.js';
import { requireOwnSender } from '../../shared/sender.js';

/**
 * The layout of the memory-service's code (January 2026), which its generated clients call:
 * `/v1/conversations/...`, agents told apart by their API key, messages as content blocks on
 * channels, and sharing also at `POST /forks` where that version put it.
 */
export function registerCodeRoutes({ writes, reads }: Halves, h: MemoryServiceHandlers): void {
  const base = '/v1/conversations';
  // The route of 1b5ccae3 offers ownership to anyone; /v1/ownership-transfers (ownership-transfers.ts) to members.
  registerSharedRoutes({ writes, reads }, h, base, 'anyone');
  reads?.get('/v1/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  reads?.get(
    `${base}/:conversationId/messages`,
    docs.route({
      summary:
        'Messages of a channel (any case): history for people; agents also their memory by epoch, the summaries, or with no channel all of these',
      params: ConversationIdParams,
      querystring: ListMessagesQuery,
      responses: { 200: CodeMessagePage },
    }),
    async (request) => {
      const { conversationId } = request.params;
      const page = await h.messages(request, conversationId, request.query, false);
      return { data: page.items.map(codeMessageView), nextCursor: page.nextCursor };
    },
  );

  writes?.post(
    `${base}/:conversationId/messages`,
    docs.route({
      summary:
        "Append a message; a missing conversation is created, owned by the caller and titled by the message's first 40 characters (untitled when it is on the memory channel). A person's message needs a text block with some text",
      params: ConversationIdParams,
      body: CreateMessageRequest,
      responses: { 201: CodeMessageBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const { conversationId } = request.params;
      const body = request.body;
      const principal = principalOf(request);
      if (body.channel === 'memory' && principal.kind === 'user')
        throw new AppError('FORBIDDEN', "The memory channel is an agent's: it needs an API key");
      requireOwnSender(request, body.userId, 'userId');
      const text = firstText(body.content);
      if (principal.kind === 'user' && text === undefined)
        throw new AppError('INVALID_PARAMETER', 'content: a message needs a text block with some text');
      const agent = principal.kind === 'agent';
      const message = newMessage({
        role: agent ? 'assistant' : 'user',
        visibility: body.channel === 'memory' ? 'agent' : 'user',
        channel: body.channel,
        epoch: body.epoch ?? null,
        content: body.content,
        user_id: agent ? (body.userId ?? null) : principal.userId,
        client_id: agent ? principal.clientId : principal.kind === 'local' ? 'local' : null,
      });
      // A conversation that begins on the memory channel starts untitled (historyTitle says why),
      // and takes its title from the first history message appended to it later.
      const owner = h.ops.ownerFor(request, body.userId);
      const out = await h.append(request, conversationId, [message], {
        owner,
        title: historyTitle([message], owner ?? null) ?? null,
      });
      return send(reply, out.stored ? { status: 201, body: codeMessageView(out.stored[0]!) } : out);
    },
  );

  writes?.post(
    `${base}/:conversationId/messages/:messageId/fork`,
    docs.route({
      summary: 'Fork at a user message of the history channel',
      params: MessageIdParams,
      body: ForkRequest.pick({ title: true }),
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
      summary: 'Every conversation of the fork tree, root first',
      params: ConversationIdParams,
      responses: { 200: CodeForkList },
    }),
    async (request) => {
      const { conversationId } = request.params;
      // The whole tree, root first (it has no forkedAt*), as the memory-service lists it.
      const { forks } = await h.forks(request, conversationId);
      return { data: forks.map(forkView) };
    },
  );

  // Sharing: at /memberships, and at POST /forks where the January 2026 version had it.
  for (const path of [`${base}/:conversationId/memberships`, `${base}/:conversationId/forks`]) {
    writes?.post(
      path,
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
  }
}
