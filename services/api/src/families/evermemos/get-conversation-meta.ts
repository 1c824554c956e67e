import type { ZodApp } from '@memstream/http';
import { ConversationMetaAnswer, ConversationMetaQuery as Query } from '@memstream/schemas';
import { AppError } from '@memstream/errors';
import { parseOrThrow, queryWithGetBody } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import {
  findConversationMeta,
  findDefaultConversationMeta,
  type Store,
  type StoredConversationMeta,
  type StoredDefaultConversationMeta,
} from '@memstream/store';
import { personOf, requireAccess } from '../../shared/access.js';
import { refuseDefaultToPerson } from './default-meta-access.js';

/**
 * GET /api/v1/memories/conversation-meta?group_id=: the group's record; for a group without one,
 * the default config (`group_id: null`, `is_default: true`, "Using default config"), as EverMemOS
 * falls back; without `group_id`, the default config itself. 404 when there is nothing to answer.
 * `group_id` may also come in a JSON body on the GET, as EverMemOS's clients send it.
 */
export function registerGetConversationMeta(app: ZodApp, deps: { store: Store }): void {
  const docs = everMemOsDocs.route({
    summary: "A group's metadata, or the default config",
    description:
      'A group without metadata of its own answers the default config (group_id null, is_default true); without group_id (or with null in a JSON body) the default config itself; 404 when there is none.',
    querystring: Query,
    // EverMemOS's clients send a GET's parameters as a JSON body too: merged with the query, then parsed
    parsedByHandler: ['querystring'],
    responses: {
      200: ConversationMetaAnswer.meta({
        description: 'The record; 404 when neither the group nor the default has one',
      }),
    },
  });
  app.get('/api/v1/memories/conversation-meta', docs, async (request) => {
    const params = await queryWithGetBody(request);
    // a JSON body's null asks for the default, as a missing group_id does
    if (params['group_id'] === null) delete params['group_id'];
    const { group_id: groupId } = parseOrThrow(Query, params, 'query');
    if (groupId === undefined) {
      refuseDefaultToPerson(personOf(request));
      const fallback = await findDefaultConversationMeta(deps.store);
      if (!fallback) throw new AppError('RESOURCE_NOT_FOUND', 'Default config not found');
      return answer(fallback, 'Conversation metadata retrieved successfully');
    }
    const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Conversation metadata not found: ${groupId}`);
    await requireAccess(deps.store, request, groupId, 'reader', notFound);
    const meta = await findConversationMeta(deps.store, groupId);
    if (meta) return answer(meta, 'Conversation metadata retrieved successfully');
    // the group may read what applies to it, default or not: it shapes its own messages
    const fallback = await findDefaultConversationMeta(deps.store);
    if (!fallback) throw notFound();
    return answer(fallback, 'Using default config');
  });
}

function answer(meta: StoredConversationMeta | StoredDefaultConversationMeta, message: string) {
  return {
    status: 'ok' as const,
    message,
    result: {
      id: meta.id,
      group_id: meta.group_id,
      version: meta.version,
      scene: meta.scene,
      scene_desc: meta.scene_desc,
      name: meta.name,
      description: meta.description,
      created_at: meta.conversation_created_at.toISOString(),
      // EverMemOS's names: the conversation's time, and whether this is the default config
      conversation_created_at: meta.conversation_created_at.toISOString(),
      is_default: meta.group_id === null,
      default_timezone: meta.default_timezone,
      user_details: meta.user_details,
      tags: meta.tags,
      updated_at: meta.updated_at.toISOString(),
    },
  };
}
