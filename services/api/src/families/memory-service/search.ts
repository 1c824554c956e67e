import type { ZodApp } from '@memstream/http';
import { audiencesOf, type Principal } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { memoryServiceDocs as docs } from './docs.js';
import { memoryServiceMessagesByKeys, visibleTo, type Store } from '@memstream/store';
import { SearchMessagesRequest, SearchResultsBody } from '@memstream/schemas';
import { OWN_WORDS_RANKING, searchMemories, type QueryEmbedder } from '@memstream/search';
import { codeMessageView } from './views.js';
import { containsQueryWord } from './query-words.js';

/** Hits asked of the index per result returned: some are then left out (agent-only, deleted). */
const OVERFETCH = 3;

/**
 * `POST /v1/user/search/messages`: hybrid search (keyword and vector) over the messages of every
 * conversation the caller may read, and nothing else. A person's scope is their groups, so a
 * fork's inherited messages are found through the conversation that stores them; people find the
 * history and the agents' summaries (as the memory-service lets them), never what only agents may
 * see (agent-only visibility, the memory channel), and an agent finds no other agent's memory
 * channel. An agent that sends a person's token with its key searches as that person, as the
 * memory-service always searches as the token's person. A hit must contain one of the query's
 * words (containsQueryWord).
 */
export function registerSearch(app: ZodApp, deps: { store: Store; embedder: QueryEmbedder }): void {
  const route = docs.route({
    summary: 'Search the messages of every conversation you may read',
    body: SearchMessagesRequest,
    responses: { 200: SearchResultsBody },
  });
  app.post('/v1/user/search/messages', route, async (request) => {
    const body = request.body;
    const caller = principalOf(request);
    const principal: Principal =
      caller.kind === 'agent' && caller.onBehalfOf !== undefined ? { kind: 'user', userId: caller.onBehalfOf } : caller;
    const person = principal.kind === 'user' ? principal.userId : undefined;
    const to = body.before ? await timeOf(deps.store, body.before, person) : undefined;
    const filters = {
      kinds: ['message'] as const,
      conversationIds: body.conversationIds ?? undefined,
      visibleTo: person,
      audiences: audiencesOf(principal),
      to,
    };
    const hits = await searchMemories(
      deps.store,
      deps.embedder,
      { query: body.query, method: 'hybrid', topK: body.topK * OVERFETCH, filters },
      OWN_WORDS_RANKING,
    );
    const matches = containsQueryWord(body.query);
    const found = await memoryServiceMessagesByKeys(
      deps.store,
      hits.map((h) => ({ conversationId: h.conversation_id, messageId: h.message_ids[0]! })),
    );
    const byKey = new Map(found.map((m) => [`${m.conversation_id}\u0000${m.message_id}`, m]));
    const data = hits.flatMap((h) => {
      const m = byKey.get(`${h.conversation_id}\u0000${h.message_ids[0]!}`);
      if (!m || !matches(h.content)) return [];
      if (person !== undefined && (m.ms.channel === 'memory' || m.ms.visibility === 'agent')) return [];
      // an agent's memory channel is its own: another client's is not found either
      if (m.ms.channel === 'memory' && principal.kind === 'agent' && m.ms.client_id !== principal.clientId) return [];
      return [{ message: codeMessageView(m), score: Math.round(h.score * 1e6) / 1e6 }];
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
  if (!rows[0]) throw new AppError('RESOURCE_NOT_FOUND', `before: no message ${messageId} you may read`);
  // strictly before: the bound is inclusive, so one millisecond earlier
  return new Date(rows[0].created_at.getTime() - 1);
}
