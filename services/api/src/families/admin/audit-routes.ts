import type { Halves } from '../../shared/halves.js';
import { listAudit, type Store } from '@memstream/store';
import { adminDocs as docs } from './docs.js';
import { auditMore, requireRole } from './audit.js';
import { AuditLogPage, AuditLogQuery } from '@memstream/schemas';
import { auditView } from './views.js';

/**
 * `GET /v1/admin/audit`: the audit log, oldest first, for auditors (memstream's addition: the
 * admin contract writes the log but has no route to read it). Reading it is itself recorded.
 */
export function registerAuditRoutes({ reads }: Halves, store: Store): void {
  reads?.get(
    '/v1/admin/audit',
    docs.route({
      summary: 'The audit log of admin and auditor calls, oldest first (auditor)',
      description:
        'Who (actorKind, actorId, role), did what (action, target), why (justification), when, with what answer (status) and how much (counts). Never content. Page with after=<nextCursor>.',
      querystring: AuditLogQuery,
      responses: { 200: AuditLogPage },
    }),
    async (request) => {
      requireRole(request, 'auditor', 'listAuditLog');
      const q = request.query;
      auditMore(request, {
        params: { actorId: q.actorId ?? null, action: q.action ?? null, target: q.target ?? null, limit: q.limit },
      });
      const page = await listAudit(store, {
        after: q.after,
        limit: q.limit,
        actorId: q.actorId,
        action: q.action,
        target: q.target,
        since: q.since ? new Date(q.since) : undefined,
        until: q.until ? new Date(q.until) : undefined,
      });
      auditMore(request, { counts: { entries: page.items.length } });
      return {
        data: page.items.map(auditView),
        nextCursor: page.more ? String(page.items.at(-1)!.id) : null,
      };
    },
  );
}
