import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { exportRecords, type ExportScope, type Queryable, type Store } from '@memstream/store';
import { EXPORT_FORMAT, EXPORT_VERSION, ExportQuery, ExportRecord } from '@memstream/schemas';
import { adminDocs as docs } from './docs.js';
import { actorOf, auditMore, justificationOf, requireRole, writeAudit } from './audit.js';

const NDJSON_ANSWER = {
  description:
    'Newline-delimited JSON, one record a line (the schema is one line): a header record, the records (conversation, fork, conversation_meta, membership, membership_removal, ownership_transfer, message, episode, episodic_memory, summary, kaos_session, kaos_event, ark_session, ark_chunk), an end record with the counts. See docs/export-import.md and schemas/export.*.schema.json',
  content: { 'application/x-ndjson': ExportRecord },
};

/**
 * `GET /v1/admin/exports` (admin: one person's data with `userId`, else the whole server, to move
 * it) and `GET /v1/me/export` (a person's own data, what they may read). Both stream NDJSON as the
 * store's pages come, and wait for the client to take each page before reading the next.
 */
export function registerExportRoutes({ reads }: Halves, store: Store): void {
  reads?.get(
    '/v1/admin/exports',
    docs.route({
      summary: "Export a person's data, or the whole server, as NDJSON (admin)",
      description:
        'With userId: the conversations the person owns, whole, and their own messages and membership in the ones they are a member of. Without: everything, to move the server. The end record closes a complete export: a body without it was cut short. Audited with the counts, never the content.',
      querystring: ExportQuery,
      responses: { 200: NDJSON_ANSWER },
    }),
    async (request, reply) => {
      requireRole(request, 'admin', 'export', { justification: justificationOf(request.query) });
      const q = request.query;
      const scope: ExportScope = q.userId ? { kind: 'person', userId: q.userId, asPerson: false } : { kind: 'server' };
      auditMore(request, { target: q.userId ?? 'server', justification: q.justification });
      await streamExport(request, reply, store, scope);
    },
  );

  reads?.get(
    '/v1/me/export',
    docs.route({
      summary: 'Export your own data as NDJSON (a person, with their own token)',
      description:
        'What you may read of your own: the conversations you own, and your messages in the ones you are a member of; no deleted conversation, nothing kept for agents only. With authentication off, the local user reaches everything, and gets the whole server. Audited with the counts.',
      responses: { 200: NDJSON_ANSWER },
    }),
    async (request, reply) => {
      const principal = principalOf(request);
      request.adminAudit = { ...actorOf(principal), role: null, action: 'exportOwnData', target: principal.kind };
      if (principal.kind === 'agent')
        throw new AppError('FORBIDDEN', 'An export of your own data is for a person; agents have none', {
          details: { message: 'An export of your own data is for a person' },
        });
      auditMore(request, { target: principal.userId });
      const scope: ExportScope =
        principal.kind === 'local' ? { kind: 'server' } : { kind: 'person', userId: principal.userId, asPerson: true };
      await streamExport(request, reply, store, scope);
    },
  );
}

/**
 * Reads the export in one repeatable-read transaction on PostgreSQL: one snapshot, so a memory is
 * never exported without the episode it stands on because it was written between the two pages.
 * PGlite has one connection, which a transaction would hold from every other call for as long as
 * the client takes to read: there the pages are read as they are (a server being moved is quiet).
 */
async function snapshot(store: Store, fn: (q: Queryable) => Promise<void>): Promise<void> {
  if (store.kind !== 'pg') return fn(store);
  return store.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await fn(tx);
  });
}

async function streamExport(request: FastifyRequest, reply: FastifyReply, store: Store, scope: ExportScope) {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
  const counts: Record<string, number> = {};
  // The client's pace sets the export's: the next page is read once the last one is taken.
  const write = (records: readonly ExportRecord[]) =>
    new Promise<void>((resolve, reject) => {
      if (res.destroyed) return reject(new Error('the client went away'));
      const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
      if (res.write(text)) return resolve();
      const drained = () => {
        res.off('close', gone);
        resolve();
      };
      const gone = () => {
        res.off('drain', drained);
        reject(new Error('the client went away'));
      };
      res.once('drain', drained);
      res.once('close', gone);
    });
  try {
    await write([
      {
        kind: 'header',
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        server: 'memstream',
        exportedAt: new Date().toISOString(),
        scope: scope.kind === 'server' ? { kind: 'server' } : { kind: 'person', userId: scope.userId },
      },
    ]);
    await snapshot(store, async (q) => {
      for await (const page of exportRecords(q, scope)) {
        for (const r of page) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
        await write(page);
      }
    });
    // Recorded before the end line goes, so a client that read the whole export finds it in the log.
    auditMore(request, { counts });
    await writeAudit(store, request, 200);
    await write([{ kind: 'end', counts }]);
  } catch (err) {
    // The answer has begun: the missing end record is what tells the client it is incomplete.
    request.log.warn({ err, counts }, 'export ended early');
    auditMore(request, { counts });
    await writeAudit(store, request, 500).catch(() => undefined);
  }
  res.end();
}
