import { Readable } from 'node:stream';
import type { Halves } from '../../shared/halves.js';
import { AppError } from '@memstream/errors';
import type { Store } from '@memstream/store';
import { ImportQuery, ImportRequest, ImportResult } from '@memstream/schemas';
import { adminDocs as docs } from './docs.js';
import { auditMore, justificationOf, requireRole } from './audit.js';
import { importStream } from './import-stream.js';

const NDJSON = ['application/x-ndjson'];

/**
 * `POST /v1/admin/imports`: an export (see export-routes) restored on this server, read as it
 * arrives. It goes straight to the store, not through the pipeline: the records carry the ids,
 * sequence numbers and times the source gave them, which the converter would give anew, and the
 * memories and summaries made from them, which the consumers would make again differently.
 */
export function registerImportRoutes({ writes }: Halves, store: Store): void {
  if (!writes) return;
  // The body is read line by line by the handler, never whole, whatever its size.
  writes.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));
  writes.post(
    '/v1/admin/imports',
    docs.route({
      summary: 'Import an export (NDJSON), keeping its ids, sequences and times (admin)',
      description:
        'Each line one record, as GET /v1/admin/exports writes them (the header first, the end record last); or, as application/json, the same records in one array. All or nothing: a bad line refuses the whole import with 400 naming it (details.line), and nothing is stored. A record whose key the server already holds is left as it is, so importing the same export twice stores it once. Records are stored only into conversations the import creates (their conversation record new to this server, earlier in the file): the records of a conversation the server already holds, or of one the file does not create, are refused, and the answer names each such conversation (refusedConversations). Search rows are written at once (keyword); their vectors follow from the indexer.',
      querystring: ImportQuery,
      body: ImportRequest,
      // Read line by line as it arrives (an export can be far larger than memory): each line is
      // checked against ImportRequest's record schemas by importStream, which names the bad line.
      parsedByHandler: ['body'],
      consumes: [...NDJSON, 'application/json'],
      responses: { 200: ImportResult },
    }),
    async (request) => {
      requireRole(request, 'admin', 'import', { justification: justificationOf(request.query) });
      const q = request.query;
      auditMore(request, { justification: q.justification });
      const body = request.body instanceof Readable ? request.body : linesOf(request.body);
      const outcome = await importStream(store, body).catch((err: unknown) => {
        body.resume(); // the rest of the body is drained, so the refusal reaches the sender
        throw err;
      });
      const { answer, touched } = outcome;
      // Each conversation created and each membership granted, by id: an import is the one write
      // that grants access past the access checks, so the log says to whom, not only how many.
      auditMore(request, {
        params: {
          conversations: touched.conversations,
          memberships: touched.memberships,
          refusedConversations: answer.refusedConversations.map((r) => r.details.id),
        },
        counts: {
          lines: answer.lines,
          ...prefixed('imported.', answer.imported),
          ...prefixed('present.', answer.alreadyPresent),
          ...prefixed('refused.', answer.refused),
        },
      });
      return answer;
    },
  );
}

/** A JSON body as the lines it stands for: an array's records, or one record. */
function linesOf(body: unknown): Readable {
  if (body === null || typeof body !== 'object')
    throw new AppError('INVALID_PARAMETER', 'Send the export as application/x-ndjson, or its records in a JSON array');
  const records: unknown[] = Array.isArray(body) ? body : [body];
  return Readable.from(records.map((r) => `${JSON.stringify(r)}\n`));
}

const prefixed = (prefix: string, counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).map(([k, v]) => [`${prefix}${k}`, v]));
