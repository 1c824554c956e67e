import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import {
  adminFindConversation,
  adminListConversations,
  deleteConversationGroup,
  findInView,
  listMemberships,
  listView,
  restoreConversationGroup,
  viewSegments,
  type Store,
} from '@memstream/store';
import { adminDocs as docs } from './docs.js';
import { auditMore, justificationOf, requireRole } from './audit.js';
import {
  AdminActionRequest,
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

/** Conversations of every person and every family: read by auditors, deleted and restored by admins. */
export function registerAdminConversationRoutes({ writes, reads }: Halves, store: Store): void {
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
      responses: { 204: 'Deleted' },
    }),
    async (request, reply) => {
      const { id } = request.params;
      requireRole(request, 'admin', 'deleteConversation', { target: id });
      const body = request.body;
      auditMore(request, { justification: body.justification });
      const found = await adminFindConversation(store, id, false);
      if (!found) throw notFound(id);
      const deleted = await store.transaction((tx) => deleteConversationGroup(tx, found.group_id));
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
      responses: { 200: AdminConversationBody },
    }),
    async (request) => {
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
      const restored = await restoreConversationGroup(store, found.group_id);
      auditMore(request, { counts: { conversations: restored } });
      return adminConversationDetail((await adminFindConversation(store, id, true))!);
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
        throw new AppError('INVALID_PARAMETER', `after: no message ${q.after} in this conversation`);
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
