import type { ZodApp } from '@memstream/http';
import { AppError } from '@memstream/errors';
import { parseOrThrow, writeOriginOf } from '@memstream/http';
import { everMemOsDocs } from './docs.js';
import {
  ConversationMetaPatch,
  ConversationMetaPatchedAnswer,
  ConversationMetaSavedAnswer,
  ConversationMetaUpsert,
  IMMUTABLE_META_FIELDS,
  SyncModeQuery,
  TOPICS,
  UPDATABLE_META_FIELDS,
  patchedFields,
} from '@memstream/schemas';
import type { Writer } from '@memstream/ingest';
import { AcceptedReply } from './accepted-reply.js';
import { replyOutcomeOrRequestId } from './reply-outcome-or-request-id.js';
import { personOf } from '../../shared/access.js';
import { refuseDefaultToPerson } from './default-meta-access.js';

/**
 * POST (upsert) and PATCH (partial update) of a group's metadata. Like messages they travel
 * through the input topic, keyed by the group, so they apply in order with the group's messages;
 * the call returns once the converter has applied them. Without a group (`group_id` null or left
 * out) they set the default config that groups without metadata of their own fall back to.
 */
export function registerConversationMeta(app: ZodApp, write: Writer): void {
  const upsertDocs = everMemOsDocs.route({
    summary: "Create or wholly replace a group's metadata, or the default config",
    description:
      'With group_id null or left out, the default config: what GET answers, and what shapes the messages and memories, of a group without metadata of its own.',
    querystring: SyncModeQuery,
    body: ConversationMetaUpsert,
    responses: {
      200: ConversationMetaSavedAnswer.meta({ description: 'Saved, once the converter applied it' }),
      202: AcceptedReply,
    },
  });
  app.post('/api/v1/memories/conversation-meta', upsertDocs, async (request, reply) => {
    const sync = request.query.sync_mode;
    const meta = request.body;
    if (meta.group_id == null) refuseDefaultToPerson(personOf(request));
    const written = await write(
      writeOriginOf(request),
      TOPICS.groupChatInput,
      { type: 'group_chat.conversation_meta.upserted', data: meta, source: 'evermemos-api' },
      sync,
    );
    return replyOutcomeOrRequestId(reply, written, (outcome) => {
      const row = outcome.result ?? {};
      return {
        status: 'ok',
        message: 'Conversation metadata saved successfully',
        result: {
          id: row['id'],
          group_id: row['group_id'] ?? null,
          scene: row['scene'],
          name: row['name'],
          is_default: row['group_id'] == null,
          version: row['version'] === '' ? null : (row['version'] ?? null),
          created_at: row['conversation_created_at'],
          // EverMemOS's name for the conversation's time (its created_at is the record's)
          conversation_created_at: row['conversation_created_at'],
          updated_at: row['updated_at'],
          request_id: written.requestId,
        },
      };
    });
  });

  const patchDocs = everMemOsDocs.route({
    summary: "Change some of a group's metadata",
    description:
      'version, scene and created_at are fixed (400); a group without metadata is 404. Without group_id (or with null), the default config (404 when there is none). A field given as null is left as it is; nothing to change answers 200 with updated_fields [].',
    querystring: SyncModeQuery,
    body: ConversationMetaPatch,
    // nulls are taken out and the fixed fields refused with their own message before it is parsed
    parsedByHandler: ['body'],
    responses: {
      200: ConversationMetaPatchedAnswer.meta({ description: 'Updated, naming the fields that changed' }),
      202: AcceptedReply,
    },
  });
  app.patch('/api/v1/memories/conversation-meta', patchDocs, async (request, reply) => {
    const sync = request.query.sync_mode;
    // EverMemOS's clients send the fields they leave alone as null
    const body = withoutNulls(request.body);
    rejectFixedFields(body);
    const patch = parseOrThrow(ConversationMetaPatch, body);
    if (patch.group_id === undefined) refuseDefaultToPerson(personOf(request));
    const fields = patchedFields(patch);
    const written = await write(
      writeOriginOf(request),
      TOPICS.groupChatInput,
      { type: 'group_chat.conversation_meta.patched', data: patch, source: 'evermemos-api' },
      sync,
    );
    return replyOutcomeOrRequestId(reply, written, (outcome) => {
      const row = outcome.result ?? {};
      return {
        status: 'ok',
        // a patch with nothing to change still goes through the converter: it is a 404 for a group without metadata
        message:
          fields.length === 0
            ? 'No fields need updating'
            : `Conversation metadata updated successfully, ${fields.length} field${fields.length === 1 ? '' : 's'} updated`,
        result: {
          id: row['id'],
          group_id: row['group_id'] ?? null,
          scene: row['scene'],
          name: row['name'],
          updated_fields: fields,
          updated_at: row['updated_at'],
          request_id: written.requestId,
        },
      };
    });
  });
}

/** A JSON object without its null-valued keys; anything else as it is (parseOrThrow words that). */
function withoutNulls(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}

/** Fixed fields get their own message (a generic "unknown key" would not tell the client why). */
function rejectFixedFields(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return; // parseOrThrow words that
  const keys = Object.keys(body);
  const fixed = keys.find((k) => (IMMUTABLE_META_FIELDS as readonly string[]).includes(k));
  if (fixed) {
    throw new AppError('INVALID_PARAMETER', `Field ${fixed} is immutable and cannot be changed by PATCH`, {
      details: { field: fixed },
    });
  }
  const allowed = new Set<string>(['group_id', ...UPDATABLE_META_FIELDS]);
  const unknown = keys.find((k) => !allowed.has(k));
  if (unknown) {
    throw new AppError(
      'INVALID_PARAMETER',
      `Unknown field ${unknown}: PATCH may change only ${UPDATABLE_META_FIELDS.join(', ')}`,
      {
        details: { field: unknown },
      },
    );
  }
}
