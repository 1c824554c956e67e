import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import { conversationsOwnedBy, memoryServiceMessagesByKeys, type Store } from '@memstream/store';
import { OWN_WORDS_RANKING, searchMemories, type QueryEmbedder } from '@memstream/search';
import { adminDocs as docs } from './docs.js';
import { auditMore, justificationOf, requireRole } from './audit.js';
import { AdminSearchRequest, AdminSearchResults, JustificationQuery } from '@memstream/schemas';
import { adminMessageView } from './views.js';
import { containsQueryWord } from '../memory-service/query-words.js';

/** Hits asked of the index per result returned: some are then left out (deleted conversations). */
const OVERFETCH = 3;

/**
 * `POST /v1/admin/search/messages`: the search of `/v1/user/search/messages` over every message of
 * every person and family, every channel included, under the same rule: a hit contains one of the
 * query's words. The query's words are not written to the audit log (they may be a person's
 * words); its filters and the number of hits are.
 */
export function registerAdminSearch({ reads }: Halves, deps: { store: Store; embedder: QueryEmbedder }): void {
  reads?.post(
    '/v1/admin/search/messages',
    docs.route({
      summary: "Search every person's messages (auditor)",
      body: AdminSearchRequest,
      querystring: JustificationQuery,
      responses: { 200: AdminSearchResults },
    }),
    async (request) => {
      requireRole(request, 'auditor', 'searchMessages', { justification: justificationOf(request.query) });
      const body = request.body;
      auditMore(request, {
        params: {
          userId: body.userId ?? null,
          includeDeleted: body.includeDeleted,
          topK: body.topK,
          conversationIds: body.conversationIds?.length ?? null,
        },
      });
      let scope = body.conversationIds ?? undefined;
      if (body.userId != null) {
        const owned = new Set(await conversationsOwnedBy(deps.store, body.userId));
        scope = scope === undefined ? [...owned] : scope.filter((id) => owned.has(id));
      }
      if (scope !== undefined && scope.length === 0) return { data: [] };
      const to = body.before ? await timeOf(deps.store, body.before) : undefined;
      const hits = await searchMemories(
        deps.store,
        deps.embedder,
        {
          query: body.query,
          method: 'hybrid',
          topK: body.topK * OVERFETCH,
          filters: { kinds: ['message'], conversationIds: scope, to },
        },
        OWN_WORDS_RANKING,
      );
      const found = await memoryServiceMessagesByKeys(
        deps.store,
        hits.map((h) => ({ conversationId: h.conversation_id, messageId: h.message_ids[0]! })),
        body.includeDeleted,
      );
      const byKey = new Map(found.map((m) => [`${m.conversation_id}\u0000${m.message_id}`, m]));
      const matches = containsQueryWord(body.query);
      const data = hits.flatMap((h) => {
        const m = byKey.get(`${h.conversation_id}\u0000${h.message_ids[0]!}`);
        return m && matches(h.content)
          ? [{ message: adminMessageView(m), score: Math.round(h.score * 1e6) / 1e6, highlights: null }]
          : [];
      });
      auditMore(request, { counts: { results: Math.min(data.length, body.topK) } });
      return { data: data.slice(0, body.topK) };
    },
  );
}

async function timeOf(store: Store, messageId: string): Promise<Date> {
  const { rows } = await store.query<{ created_at: Date }>(
    'SELECT created_at FROM messages WHERE message_id = $1 ORDER BY created_at LIMIT 1',
    [messageId],
  );
  if (!rows[0]) throw new AppError('INVALID_PARAMETER', `before: no message ${messageId}`);
  return new Date(rows[0].created_at.getTime() - 1);
}
