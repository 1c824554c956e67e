import type { ZodApp } from '@memstream/http';
import { ConversationMetaAnswer, ConversationMetaQuery as Query } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import { parseOrThrow, queryWithGetBody } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import { findConversationMeta, type Store } from '@memstream/store';
import { requireAccess } from '../../shared/access.js';

/**
 * GET /api/v1/memories/conversation-meta?group_id=: the whole record, 404 when the group has none.
 * `group_id` may also come in a JSON body on the GET, as EverMemOS's clients send it.
 */
export function registerGetConversationMeta(app: ZodApp, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: "A group's metadata",
    querystring: Query,
    // EverMemOS's clients send a GET's parameters as a JSON body too: merged with the query, then parsed
    parsedByHandler: ['querystring'],
    responses: { 200: ConversationMetaAnswer.meta({ description: 'The whole record; 404 when the group has none' }) },
  });
  app.get('/api/v1/memories/conversation-meta', docs, async (request) => {
    const { group_id: groupId } = parseOrThrow(Query, await queryWithGetBody(request), 'query');
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Conversation metadata not found: ${groupId}`);
    await requireAccess(deps.store, request, groupId, 'reader', notFound);
    const meta = await findConversationMeta(deps.store, groupId);
    if (!meta) throw notFound();
    return {
      status: 'ok' as const,
      message: 'Conversation metadata retrieved successfully',
      result: {
        id: meta.id,
        group_id: meta.group_id,
        version: meta.version,
        scene: meta.scene,
        scene_desc: meta.scene_desc,
        name: meta.name,
        description: meta.description,
        created_at: meta.conversation_created_at.toISOString(),
        // EverMemOS's names: the conversation's time, and whether this is a scene's default config (never here)
        conversation_created_at: meta.conversation_created_at.toISOString(),
        is_default: false,
        default_timezone: meta.default_timezone,
        user_details: meta.user_details,
        tags: meta.tags,
        updated_at: meta.updated_at.toISOString(),
      },
    };
  });
}
