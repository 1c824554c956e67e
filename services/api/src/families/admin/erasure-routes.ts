import type { FastifyRequest } from 'fastify';
import type { Principal } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { principalOf, writeOriginOf } from '@memstream/http';
import {
  createErasureJob,
  findErasureJob,
  FIRST_ERASURE_STEP,
  listErasureJobs,
  type ErasureJob,
  type Store,
} from '@memstream/store';
import {
  ErasureAccepted,
  ErasureList,
  ErasureListQuery,
  ErasureParams,
  ErasureReceipt,
  ErasureRequest,
  MyErasureRequest,
  Role,
  TOPICS,
} from '@memstream/schemas';
import type { Writer } from '@memstream/ingest';
import type { Halves } from '../../shared/halves.js';
import { adminDocs as docs } from './docs.js';
import { actorOf, auditMore, requireRole } from './audit.js';
import { erasureReceiptView } from './views.js';

/**
 * Erasing a person: `POST /v1/admin/erasures` (admin) and `POST /v1/me/erasure` (the person
 * themself) make the job row and publish its event like any other write; the converter that
 * receives it runs the job (libs/store's erasure runner), and any converter's sweep takes over a
 * job whose runner died. Both answer 202 with the job at once; the receipt is read with
 * `GET /v1/admin/erasures/{id}` (admin or auditor; the latest ones with `GET /v1/admin/erasures`) or `GET /v1/me/erasures/{id}` (the person's
 * own only). Every call is in the audit log; what the job removed is added there when it ends.
 */
export function registerErasureRoutes({ writes, reads }: Halves, deps: { store: Store; write: Writer }): void {
  writes?.post(
    '/v1/admin/erasures',
    docs.route({
      summary: 'Erase a person from every family, with everything made from their words (admin)',
      description:
        'Answers 202 with the job; the receipt (GET /v1/admin/erasures/{id}) says when it completed and what it removed or rewrote, per family and per store. What a person is made of: docs/your-users-data.md.',
      body: ErasureRequest,
      responses: { 202: ErasureAccepted },
    }),
    async (request, reply) => {
      requireRole(request, 'admin', 'erasePerson');
      const body = request.body;
      auditMore(request, { target: body.userId, justification: body.justification });
      const job = await accept(request, deps, { userId: body.userId, justification: body.justification, self: false });
      auditMore(request, { params: { erasureId: job.id } });
      return reply.code(202).send({ id: job.id, status: job.status });
    },
  );

  reads?.get(
    '/v1/admin/erasures',
    docs.route({
      summary: 'The latest erasures, newest first, with their receipts (auditor)',
      description: "memstream's addition, for the console: up to limit erasures, or one person's with userId.",
      querystring: ErasureListQuery,
      responses: { 200: ErasureList },
    }),
    async (request) => {
      const q = request.query;
      requireRole(request, 'auditor', 'listErasures', { params: { userId: q.userId ?? null, limit: q.limit } });
      const jobs = await listErasureJobs(deps.store, { limit: q.limit, userId: q.userId });
      auditMore(request, { counts: { erasures: jobs.length } });
      return { data: jobs.map(erasureReceiptView) };
    },
  );

  reads?.get(
    '/v1/admin/erasures/:id',
    docs.route({
      summary: "An erasure's receipt (auditor)",
      params: ErasureParams,
      responses: { 200: ErasureReceipt },
    }),
    async (request) => {
      requireRole(request, 'auditor', 'getErasure');
      const { id } = request.params;
      auditMore(request, { target: id });
      return erasureReceiptView(await found(deps.store, id));
    },
  );

  writes?.post(
    '/v1/me/erasure',
    docs.route({
      summary: 'Erase yourself from every family (the caller, as their token names them)',
      description:
        'The same job as POST /v1/admin/erasures, for the calling person; with authentication off, the local user. An agent key names no person and is refused, and so is a person whose id is a role name (user, assistant, system, tool: also the sender of messages that name nobody).',
      body: MyErasureRequest,
      emptyBody: {},
      responses: { 202: ErasureAccepted },
    }),
    async (request, reply) => {
      const person = personOrRefuse(request, 'eraseMyself');
      // A role's name is also the sender that messages naming nobody are kept under (ARK turns
      // without a `name`, KAOS sessions without a user), which their owner could not even read:
      // erasing it would take those along, so it is an administrator's decision, not a self-service.
      if ((Role.options as readonly string[]).includes(person)) {
        throw new AppError(
          'FORBIDDEN',
          `The id ${person} is also the sender of messages that name nobody (ARK turns without a name, KAOS sessions without a user); an administrator erases it (POST /v1/admin/erasures)`,
          { details: { message: 'A role name is erased by an administrator' } },
        );
      }
      const body = request.body;
      auditMore(request, { justification: body.justification });
      const job = await accept(request, deps, { userId: person, justification: body.justification, self: true });
      auditMore(request, { params: { erasureId: job.id } });
      return reply.code(202).send({ id: job.id, status: job.status });
    },
  );

  reads?.get(
    '/v1/me/erasures/:id',
    docs.route({
      summary: 'The receipt of an erasure of yourself',
      params: ErasureParams,
      responses: { 200: ErasureReceipt },
    }),
    async (request) => {
      const person = personOrRefuse(request, 'getMyErasure');
      const { id } = request.params;
      auditMore(request, { target: id });
      // someone else's erasure is answered as no erasure at all: its existence is not the caller's to learn
      return erasureReceiptView(await found(deps.store, id, person));
    },
  );
}

/** The job row first, then its event: a job whose event was lost is still taken by a converter's sweep. */
async function accept(
  request: FastifyRequest,
  deps: { store: Store; write: Writer },
  o: { userId: string; justification: string | undefined; self: boolean },
): Promise<ErasureJob> {
  const job = await createErasureJob(deps.store, {
    userId: o.userId,
    requestedBy: Object.values(actorOf(principalOf(request))).join(':'),
    self: o.self,
    justification: o.justification,
    firstStep: FIRST_ERASURE_STEP,
  });
  await deps.write(
    writeOriginOf(request),
    TOPICS.erasures,
    { type: 'person.erasure.requested', data: { erasure_id: job.id, user_id: o.userId }, source: 'admin-api' },
    false,
  );
  return job;
}

async function found(store: Store, id: string, userId?: string): Promise<ErasureJob> {
  const job = await findErasureJob(store, id, { userId });
  if (!job) throw new AppError('RESOURCE_NOT_FOUND', `No erasure ${id}`, { details: { resource: 'erasure', id } });
  return job;
}

/**
 * The calling person (a token's subject, or the local user without authentication), with the call's
 * audit entry begun; an agent is refused (403): erasing oneself needs a self.
 */
function personOrRefuse(request: FastifyRequest, action: string): string {
  const principal: Principal = principalOf(request);
  request.adminAudit = { ...actorOf(principal), role: null, action, target: undefined };
  if (principal.kind === 'agent')
    throw new AppError('FORBIDDEN', 'An agent names no person to erase; call with the person’s own token', {
      details: { message: 'An agent names no person to erase' },
    });
  return principal.userId;
}
