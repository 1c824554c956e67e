import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hasRole, type Principal, type Role } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { recordAudit, type AuditEntry, type Store } from '@memstream/store';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin call's audit entry as far as it is known; written when the answer is sent. */
    adminAudit: AuditDraft | null;
  }
}

type AuditDraft = Omit<AuditEntry, 'status'>;
type AuditParams = AuditEntry['params'];

const REFUSALS: Record<Role, string> = {
  admin: 'Admin role required for this operation',
  auditor: 'Auditor or admin role required for this operation',
};

/**
 * Refuses (403, memory-service's shape) a caller without `role`, and starts the call's audit entry
 * either way: a refused attempt is written too, with the role the caller does hold (none for a
 * plain person or agent). Every admin route calls it first.
 */
export function requireRole(
  request: FastifyRequest,
  role: Role,
  action: string,
  o: { target?: string | undefined; justification?: string | undefined; params?: AuditParams } = {},
): void {
  const principal = principalOf(request);
  const held: Role | null = hasRole(principal, 'admin') ? 'admin' : hasRole(principal, 'auditor') ? 'auditor' : null;
  request.adminAudit = {
    ...actorOf(principal),
    role: held,
    action,
    target: o.target,
    justification: o.justification,
    params: o.params,
  };
  if (!hasRole(principal, role))
    throw new AppError('FORBIDDEN', REFUSALS[role], { details: { message: REFUSALS[role] } });
}

/** Adds what the call touched (numbers only) or learned (its justification from the body) to its entry. */
export function auditMore(
  request: FastifyRequest,
  more: Partial<Pick<AuditDraft, 'counts' | 'target' | 'justification' | 'params'>>,
): void {
  if (request.adminAudit) request.adminAudit = { ...request.adminAudit, ...more };
}

export function actorOf(principal: Principal): Pick<AuditEntry, 'actorKind' | 'actorId'> {
  if (principal.kind === 'agent') return { actorKind: 'agent', actorId: principal.clientId };
  return { actorKind: principal.kind, actorId: principal.userId };
}

/**
 * Writes each admin call's entry before its answer leaves (so whoever reads the log after an
 * answer finds the call in it), with the status the caller gets. A call whose entry cannot be
 * written fails: an admin action must not go unrecorded.
 */
export function auditEveryCall(app: FastifyInstance, store: Store): void {
  app.decorateRequest('adminAudit', null);
  app.addHook('onSend', async (request, reply, payload) => {
    const draft = request.adminAudit;
    if (!draft) return payload;
    request.adminAudit = null;
    await recordAudit(store, { ...draft, status: reply.statusCode });
    return payload;
  });
}

/** For answers sent outside fastify's reply (an SSE stream): the entry, written now. */
export async function writeAudit(store: Store, request: FastifyRequest, status: number): Promise<void> {
  const draft = request.adminAudit;
  if (!draft) return;
  request.adminAudit = null;
  await recordAudit(store, { ...draft, status });
}

/**
 * The justification of a query string as sent, for the entry of a call refused or failing
 * validation before its query is parsed: only a string, bounded, without NUL (the parsed query
 * bounds it for the others).
 */
export function justificationOf(query: unknown): string | undefined {
  const value =
    query !== null && typeof query === 'object' ? (query as Record<string, unknown>)['justification'] : undefined;
  return typeof value === 'string' ? value.replaceAll('\u0000', '').slice(0, 2000) : undefined;
}
