import type { FastifyRequest } from 'fastify';
import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import { writeOriginOf } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import {
  adminFindConversation,
  adminListConversations,
  findInView,
  listMemberships,
  listView,
  viewSegments,
  type Store,
} from '@memstream/store';
import { TOPICS } from '@memstream/schemas';
import { outcomeOrStillApplying, StillApplying } from '../memory-service/outcome-or-still-applying.js';
import { adminDocs as docs } from './docs.js';
import { auditMore, justificationOf, requireRole } from './audit.js';
import {
  AdminActionRequest,
  AdminChangeAccepted,
  AdminConversationBody,
  AdminConversationList,
  AdminConversationParams,
  AdminGetConversationQuery,
  AdminListConversationsQuery,
  AdminMembershipList,
  AdminMessagePage,
  AdminMessagesQuery,
} from '@memstream/schemas';
import { adminConversationDetail, adminConversationView, adminMessageView } from './views.js';

const notFound = (id: string) =>
  new AppError('RESOURCE_NOT_FOUND', `No conversation ${id}`, { details: { resource: 'conversation', id } });

/**
 * An admin's deletion or restoration, as every change is made: published to the conversation
 * input topic in the group's order, applied by the converter, and held until it is stored. The
 * conversations it changed, or StillApplying when the wait ended first (answered 202).
 */
async function adminChange(
  write: Writer,
  request: FastifyRequest,
  found: { id: string; group_id: string },
  action: 'delete' | 'restore',
): Promise<number | StillApplying> {
  const written = await write(
    writeOriginOf(request),
    TOPICS.conversationInput,
    {
      type: 'conversation.admin.changed',
      data: { conversation_id: found.id, group_id: found.group_id, action },
      source: 'memory-service',
    } as never,
    true,
  );
  const outcome = outcomeOrStillApplying(written, found.id);
  if (outcome instanceof StillApplying) return outcome;
  return Number((outcome.result as { conversations?: number } | null)?.conversations ?? 0);
}

const stillApplying = (pending: StillApplying, id: string) => ({
  status: 'accepted' as const,
  id,
  requestId: pending.requestId,
});

/** Conversations of every person and every family: read by auditors, deleted and restored by admins. */
export function registerAdminConversationRoutes(
  { writes, reads }: Halves,
  deps: { store: Store; write: Writer },
): void {
  const { store } = deps;
  reads?.get(
    '/v1/admin/conversations',
    docs.route({
      summary: 'Conversations of every person and family (auditor)',
      description:
        'userId keeps those the person owns; includeDeleted adds soft-deleted ones, onlyDeleted (or a deletedAfter/deletedBefore bound) keeps only them.',
      querystring: AdminListConversationsQuery,
      responses: { 200: AdminConversationList },
    }),
    async (request) => {
      requireRole(request, 'auditor', 'listConversations', { justification: justificationOf(request.query) });
      const q = request.query;
      auditMore(request, {
        params: {
          userId: q.userId ?? null,
          includeDeleted: q.includeDeleted,
          onlyDeleted: q.onlyDeleted,
          limit: q.limit,
        },
      });
      const page = await adminListConversations(store, {
        ownerUserId: q.userId,
        includeDeleted: q.includeDeleted,
        onlyDeleted: q.onlyDeleted,
        deletedAfter: q.deletedAfter ? new Date(q.deletedAfter) : undefined,
        deletedBefore: q.deletedBefore ? new Date(q.deletedBefore) : undefined,
        after: q.after,
        limit: q.limit,
      });
      auditMore(request, { counts: { conversations: page.items.length } });
      return { data: page.items.map(adminConversationView) };
    },
  );

  reads?.get(
    '/v1/admin/conversations/:id',
    docs.route({
      summary: 'Any conversation (auditor); a soft-deleted one with includeDeleted=true',
      params: AdminConversationParams,
      querystring: AdminGetConversationQuery,
      responses: { 200: AdminConversationBody },
    }),
    async (request) => {
      const { id } = request.params;
      requireRole(request, 'auditor', 'getConversation', { target: id, justification: justificationOf(request.query) });
      const q = request.query;
      auditMore(request, { params: { includeDeleted: q.includeDeleted } });
      const found = await adminFindConversation(store, id, q.includeDeleted);
      if (!found) throw notFound(id);
      return adminConversationDetail(found);
    },
  );

  writes?.delete(
    '/v1/admin/conversations/:id',
    docs.route({
      summary: 'Soft-delete any conversation with its whole fork tree (admin)',
      params: AdminConversationParams,
      body: AdminActionRequest,
      emptyBody: {},
      responses: { 202: AdminChangeAccepted, 204: 'Deleted' },
    }),
    async (request, reply) => {
      const { id } = request.params;
      requireRole(request, 'admin', 'deleteConversation', { target: id });
      const body = request.body;
      auditMore(request, { justification: body.justification });
      const found = await adminFindConversation(store, id, false);
      if (!found) throw notFound(id);
      const deleted = await adminChange(deps.write, request, found, 'delete');
      if (deleted instanceof StillApplying) return reply.code(202).send(stillApplying(deleted, id));
      auditMore(request, { counts: { conversations: deleted } });
      return reply.code(204).send();
    },
  );

  writes?.post(
    '/v1/admin/conversations/:id/restore',
    docs.route({
      summary: 'Restore a soft-deleted conversation with its fork tree (admin); 409 when it is not deleted',
      params: AdminConversationParams,
      body: AdminActionRequest,
      emptyBody: {},
      responses: { 200: AdminConversationBody, 202: AdminChangeAccepted },
    }),
    async (request, reply) => {
      const { id } = request.params;
      requireRole(request, 'admin', 'restoreConversation', { target: id });
      const body = request.body;
      auditMore(request, { justification: body.justification });
      const found = await adminFindConversation(store, id, true);
      if (!found) throw notFound(id);
      if (found.deleted_at === null)
        throw new AppError('CONFLICT', `Conversation ${id} is not deleted`, {
          details: { message: `Conversation ${id} is not deleted` },
        });
      const restored = await adminChange(deps.write, request, found, 'restore');
      if (restored instanceof StillApplying) return reply.code(202).send(stillApplying(restored, id));
      auditMore(request, { counts: { conversations: restored } });
      const now = await adminFindConversation(store, id, true);
      if (!now) throw notFound(id);
      return adminConversationDetail(now);
    },
  );

  reads?.get(
    '/v1/admin/conversations/:id/messages',
    docs.route({
      summary: "Any conversation's messages, every channel unless one is named (auditor)",
      params: AdminConversationParams,
      querystring: AdminMessagesQuery,
      responses: { 200: AdminMessagePage },
    }),
    async (request) => {
      const { id } = request.params;
      requireRole(request, 'auditor', 'getMessages', { target: id, justification: justificationOf(request.query) });
      const q = request.query;
      auditMore(request, { params: { includeDeleted: q.includeDeleted, channel: q.channel ?? null, limit: q.limit } });
      if (!(await adminFindConversation(store, id, q.includeDeleted))) throw notFound(id);
      const segments = await viewSegments(store, id);
      const after = q.after === undefined ? undefined : await findInView(store, segments, q.after);
      if (q.after !== undefined && !after)
        throw new AppError('RESOURCE_NOT_FOUND', `after: no message ${q.after} in this conversation`);
      const page = await listView(
        store,
        segments,
        { channel: q.channel, hideAgentOnly: false },
        { after, limit: q.limit },
      );
      auditMore(request, { counts: { messages: page.items.length } });
      return {
        data: page.items.map(adminMessageView),
        nextCursor: page.more ? page.items.at(-1)!.message_id : null,
      };
    },
  );

  reads?.get(
    '/v1/admin/conversations/:id/memberships',
    docs.route({
      summary: "Any conversation's memberships (auditor)",
      params: AdminConversationParams,
      querystring: AdminGetConversationQuery,
      responses: { 200: AdminMembershipList },
    }),
    async (request) => {
      const { id } = request.params;
      requireRole(request, 'auditor', 'getMemberships', { target: id, justification: justificationOf(request.query) });
      const q = request.query;
      auditMore(request, { params: { includeDeleted: q.includeDeleted } });
      const found = await adminFindConversation(store, id, q.includeDeleted);
      if (!found) throw notFound(id);
      const members = await listMemberships(store, found.group_id);
      auditMore(request, { counts: { memberships: members.length } });
      return {
        data: members.map((m) => ({
          conversationId: id,
          userId: m.user_id,
          accessLevel: m.access_level,
          createdAt: m.created_at.toISOString(),
        })),
      };
    },
  );
}
