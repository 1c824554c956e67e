import type { ZodApp } from '@memstream/http';
import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import {
  findInView,
  listView,
  viewSegments,
  type MemoryServiceStoredMessage,
  type Store,
  type ViewPosition,
} from '@memstream/store';
import {
  ConversationIdParams,
  MemoryServiceAcceptedBody,
  SyncMessagesRequest,
  SyncResultBody,
  type MemoryServiceMessage,
} from '@memstream/schemas';
import { newMessage } from './conversation-ops.js';
import { send, type MemoryServiceHandlers } from './handlers.js';
import { codeMessageView } from './views.js';

/** The memory channel is per agent client: an API key's, or the local user's. */
function agentClient(request: FastifyRequest): string {
  const principal = principalOf(request);
  if (principal.kind === 'user') throw new AppError('FORBIDDEN', 'Syncing memory messages needs an agent API key');
  return principal.kind === 'agent' ? principal.clientId : 'local';
}

/**
 * `POST /v1/conversations/{id}/memory/messages/sync`, as the memory-service does it: the agent
 * sends the whole memory it wants for its current epoch. The same messages (content compared as
 * JSON, key order aside) change nothing; the stored ones followed by more are appended to within
 * the epoch; anything else starts the next epoch with all of them. Memory is per agent client,
 * so another agent's epochs are never read or moved.
 */
export function registerMemorySync(app: ZodApp, h: MemoryServiceHandlers, store: Store): void {
  app.post(
    '/v1/conversations/:conversationId/memory/messages/sync',
    docs.route({
      summary:
        "Sync an agent's memory: unchanged is a no-op, an extension is appended within the epoch, anything else starts a new epoch",
      params: ConversationIdParams,
      body: SyncMessagesRequest,
      responses: { 200: SyncResultBody, 202: MemoryServiceAcceptedBody },
    }),
    async (request, reply) => {
      const clientId = agentClient(request);
      const { conversationId } = request.params;
      const body = request.body;
      const current = await latestEpoch(store, conversationId, clientId);
      const stored = current.messages.map((m) => canonical(m.ms.content));
      const wanted = body.messages.map((m) => canonical(m.content));
      const extends_ = stored.length > 0 && stored.every((c, i) => c === wanted[i]);
      // (only stored messages extend: an epoch holding some is numbered)
      const epoch = extends_ ? current.epoch! : (current.epoch ?? 0) + 1;
      if (extends_ && stored.length === wanted.length)
        return { epoch, noOp: true, epochIncremented: false, messages: [] };
      const messages: MemoryServiceMessage[] = body.messages.slice(extends_ ? stored.length : 0).map((m) =>
        newMessage({
          role: 'assistant',
          visibility: 'agent',
          channel: 'memory',
          epoch,
          content: m.content,
          user_id: m.userId ?? null,
          client_id: clientId,
        }),
      );
      const out = await h.append(request, conversationId, messages, { owner: h.ops.ownerFor(request) });
      if (!out.stored) return send(reply, out);
      return {
        epoch,
        noOp: false,
        epochIncremented: !extends_,
        messages: out.stored.map(codeMessageView),
      };
    },
  );
}

/** The client's newest epoch and its messages in order; no epoch (null) when it has none numbered. */
async function latestEpoch(
  store: Store,
  conversationId: string,
  clientId: string,
): Promise<{ epoch: number | null; messages: MemoryServiceStoredMessage[] }> {
  const segments = await viewSegments(store, conversationId);
  const messages: MemoryServiceStoredMessage[] = [];
  let after: ViewPosition | undefined;
  for (;;) {
    const page = await listView(
      store,
      segments,
      { channel: 'memory', hideAgentOnly: false, clientId, epoch: 'latest' },
      { after, limit: 1000 },
    );
    messages.push(...page.items);
    if (!page.more) break;
    after = await findInView(store, segments, page.items.at(-1)!.message_id);
  }
  const epoch = messages[0]?.ms.epoch ?? null;
  // Memory written without an epoch is not an epoch to extend: the next one is 1.
  return epoch === null ? { epoch: null, messages: [] } : { epoch, messages };
}

/** JSON with object keys sorted, so two contents that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
