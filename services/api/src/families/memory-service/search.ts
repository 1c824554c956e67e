import type { FastifyInstance } from 'fastify';
import { audiencesOf } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { parseOrThrow, principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import { msMessagesByKeys, visibleTo, type Store } from '@memstream/store';
import { SearchMessagesRequest } from '@memstream/schemas';
import { OWN_WORDS_RANKING, searchMemories, type QueryEmbedder } from '@memstream/search';
import { codeMessageView } from './views.js';

/** Hits asked of the index per result returned: some are then left out (agent-only, deleted). */
const OVERFETCH = 3;

/**
 * `POST /v1/user/search/messages`: hybrid search (keyword and vector) over the messages of every
 * conversation the caller may read, and nothing else. A person's scope is their groups, so a
 * fork's inherited messages are found through the conversation that stores them; what only agents
 * may see (agent-only visibility, the memory and summary channels) is left out for people, and
 * an agent finds no other agent's memory channel.
 */
export function registerSearch(app: FastifyInstance, deps: { store: Store; embedder: QueryEmbedder }): void {
  const route = docs.route({
    summary: 'Search the messages of every conversation you may read',
    body: SearchMessagesRequest,
    responses: { 200: '{data: [{message, score, highlights}]}, best first' },
  });
  app.post('/v1/user/search/messages', route, async (request) => {
    const body = parseOrThrow(SearchMessagesRequest, request.body);
    const principal = principalOf(request);
    const person = principal.kind === 'user' ? principal.userId : undefined;
    const to = body.before ? await timeOf(deps.store, body.before, person) : undefined;
    const hits = await searchMemories(
      deps.store,
      deps.embedder,
      {
        query: body.query,
        method: 'hybrid',
        topK: body.topK * OVERFETCH,
        filters: {
          kinds: ['message'],
          conversationIds: body.conversationIds ?? undefined,
          visibleTo: person,
          audiences: audiencesOf(principal),
          to,
        },
      },
      OWN_WORDS_RANKING,
    );
    const found = await msMessagesByKeys(
      deps.store,
      hits.map((h) => ({ conversationId: h.conversation_id, messageId: h.message_ids[0]! })),
    );
    const byKey = new Map(found.map((m) => [`${m.conversation_id}\u0000${m.message_id}`, m]));
    const data = hits.flatMap((h) => {
      const m = byKey.get(`${h.conversation_id}\u0000${h.message_ids[0]!}`);
      if (!m || (person !== undefined && (m.ms.channel !== 'history' || m.ms.visibility === 'agent'))) return [];
      // an agent's memory channel is its own: another client's is not found either
      if (m.ms.channel === 'memory' && principal.kind === 'agent' && m.ms.client_id !== principal.clientId) return [];
      return [
        {
          message: codeMessageView(m),
          score: Math.round(h.score * 1e6) / 1e6,
          highlights: highlightOf(m.content_text, body.query),
        },
      ];
    });
    return { data: data.slice(0, body.topK) };
  });
}

/** When `before` was written; it must be a message the caller may read. */
async function timeOf(store: Store, messageId: string, person: string | undefined): Promise<Date> {
  const params: unknown[] = [messageId];
  const scope = person === undefined ? '' : `AND ${visibleTo('conversation_id', params, person)}`;
  const { rows } = await store.query<{ created_at: Date }>(
    `SELECT created_at FROM messages WHERE message_id = $1 ${scope} ORDER BY created_at LIMIT 1`,
    params,
  );
  if (!rows[0]) throw new AppError('INVALID_PARAMETER', `before: no message ${messageId} you may read`);
  // strictly before: the bound is inclusive, so one millisecond earlier
  return new Date(rows[0].created_at.getTime() - 1);
}

/** The part of the text around the first word of the query it contains, or its start. */
export function highlightOf(text: string, query: string): string | null {
  if (text.length === 0) return null;
  const lower = text.toLowerCase();
  const at = query
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length >= 3)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  const start = Math.max(0, (at ?? 0) - 60);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + 160)}${start + 160 < text.length ? '…' : ''}`;
}
