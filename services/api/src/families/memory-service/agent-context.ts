import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import {
  findInView,
  latestCompletedSummary,
  listView,
  viewSegments,
  type MemoryServiceStoredMessage,
  type Store,
  type ViewPosition,
} from '@memstream/store';
import {
  AgentContextBody,
  CodeMessageBody,
  ContextQuery,
  ConversationIdParams,
  CreateSummaryRequest,
  MemoryServiceAcceptedBody,
} from '@memstream/schemas';
import { newMessage } from './conversation-ops.js';
import { send, type MemoryServiceHandlers } from './handlers.js';
import { codeMessageView, documentMessageView } from './views.js';
import type { Halves } from '../../shared/halves.js';

/** Summaries and context are the agents' (an API key, or the local user): people never see them. */
function requireAgent(request: FastifyRequest): string {
  const principal = principalOf(request);
  if (principal.kind === 'user') throw new AppError('FORBIDDEN', 'Summaries and agent context need an API key');
  return principal.kind === 'agent' ? principal.clientId : 'local';
}

/**
 * Agent summaries and agent context. A summary is a message of the summary channel (written by
 * agents, searchable by the conversation's members) covering the view up to `untilMessageId`, and
 * names the conversation. The
 * context is the view for a prompt: the newest summary in place of the messages it covers, then
 * what came after, in order; where no agent wrote one, the platform's own rolling summary (the
 * Memory Agent's) stands in for the span it covers.
 */
export function registerAgentContext({ writes, reads }: Halves, h: MemoryServiceHandlers, store: Store): void {
  for (const path of [
    '/v1/conversations/:conversationId/summaries',
    '/v1/agent/conversations/:conversationId/summaries',
  ]) {
    writes?.post(
      path,
      docs.route({
        summary: "Store an agent's summary of the conversation so far; it sets the title",
        params: ConversationIdParams,
        body: CreateSummaryRequest,
        responses: { 201: CodeMessageBody, 202: MemoryServiceAcceptedBody },
      }),
      async (request, reply) => {
        const clientId = requireAgent(request);
        const { conversationId } = request.params;
        const body = request.body;
        await h.ops.require(request, conversationId, 'writer', 'Summarizing');
        if (!(await findInView(store, await viewSegments(store, conversationId), body.untilMessageId))) {
          throw new AppError(
            'RESOURCE_NOT_FOUND',
            `untilMessageId: no message ${body.untilMessageId} in this conversation`,
          );
        }
        const message = newMessage({
          role: 'system',
          // The conversation's members read summaries (they search them), as the memory-service has it.
          visibility: 'user',
          channel: 'summary',
          client_id: clientId,
          content: [
            {
              type: 'summary',
              text: body.summary,
              untilMessageId: body.untilMessageId,
              summarizedAt: body.summarizedAt,
            },
          ],
        });
        const out = await h.append(request, conversationId, [message], undefined, body.title);
        return send(reply, out.stored ? { status: 201, body: codeMessageView(out.stored[0]!) } : out);
      },
    );
  }

  reads?.get(
    '/v1/agent/conversations/:conversationId/context',
    docs.route({
      summary: 'The conversation for a prompt: the newest summary, then the messages after it',
      params: ConversationIdParams,
      querystring: ContextQuery,
      responses: { 200: AgentContextBody },
    }),
    async (request) => {
      requireAgent(request);
      const { conversationId } = request.params;
      const query = request.query;
      await h.ops.require(request, conversationId, 'reader', 'Reading');
      const segments = await viewSegments(store, conversationId);
      const lead: ReturnType<typeof documentMessageView>[] = [];
      let after: ViewPosition | undefined;
      if (query.afterMessageId !== undefined) {
        after = await findInView(store, segments, query.afterMessageId);
        if (!after)
          throw new AppError(
            'RESOURCE_NOT_FOUND',
            `afterMessageId: no message ${query.afterMessageId} in this conversation`,
          );
      } else {
        const summary = await newestAgentSummary(store, segments);
        if (summary) {
          lead.push(documentMessageView(summary.message));
          after = summary.covers;
        } else if (segments.length === 1) {
          // The platform's rolling summary numbers the conversation's own messages: a fork has none of its own yet.
          const rolling = await latestCompletedSummary(store, conversationId);
          if (rolling) {
            lead.push({
              id: `summary-${rolling.memory_id}`,
              conversationId,
              userId: null,
              role: 'system',
              visibility: 'agent',
              channel: 'summary',
              content: rolling.memory_text,
              contentBlocks: [{ type: 'summary', text: rolling.memory_text, untilSequence: rolling.end_sequence }],
              metadata: { source: 'memstream-rolling-summary' },
              parentMessageId: null,
              sequence: rolling.end_sequence,
              createdAt: rolling.updated_at.toISOString(),
            });
            after = { segment: 1, seq: rolling.end_sequence };
          }
        }
      }
      const limit = Math.max(1, query.limit - lead.length);
      const page = await listView(store, segments, { channel: 'history', hideAgentOnly: false }, { after, limit });
      return {
        conversationId,
        messages: [...lead, ...page.items.map(documentMessageView)],
        nextAfterMessageId: page.more ? page.items.at(-1)!.message_id : null,
      };
    },
  );
}

/** The newest summary message of the view and the position of the last message it covers. */
async function newestAgentSummary(
  store: Store,
  segments: Parameters<typeof listView>[1],
): Promise<{ message: MemoryServiceStoredMessage; covers: ViewPosition } | undefined> {
  let newest: MemoryServiceStoredMessage | undefined;
  let after: ViewPosition | undefined;
  for (;;) {
    const page = await listView(store, segments, { channel: 'summary', hideAgentOnly: false }, { after, limit: 500 });
    newest = page.items.at(-1) ?? newest;
    if (!page.more) break;
    const last = page.items.at(-1)!;
    after = await findInView(store, segments, last.message_id);
  }
  if (!newest) return undefined;
  const until = (newest.ms.content[0] as { untilMessageId?: unknown } | undefined)?.untilMessageId;
  const covers = typeof until === 'string' ? await findInView(store, segments, until) : undefined;
  return covers ? { message: newest, covers } : undefined;
}
