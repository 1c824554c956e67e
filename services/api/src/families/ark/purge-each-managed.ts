import type { FastifyRequest } from 'fastify';
import { writeOriginOf } from '@memstream/http';
import { outcomeError, type WriteOrigin, type WriteResult } from '@memstream/ingest';
import type { RequestOutcome } from '@memstream/schemas';
import type { Store } from '@memstream/store';
import { mayAccess } from '../../shared/access.js';

export type PurgeResult =
  | { readonly kind: 'accepted'; readonly requestIds: string[] }
  | { readonly kind: 'done'; readonly sessions: string[]; readonly outcomes: RequestOutcome[] };

/**
 * ARK's two purges (stored messages, relayed streams) under one rule: of `candidates`, the
 * sessions the caller manages, each purged by its own write through Kafka (`write`), all at once,
 * held until applied. Any write that outlasts the sync wait makes the whole answer `accepted`,
 * with every request id. A session found empty meanwhile (purged by someone else, or its access
 * withdrawn since the listing) is no error; any other failure is thrown as the error it was.
 */
export async function purgeEachManaged(
  store: Store,
  request: FastifyRequest,
  candidates: readonly string[],
  write: (origin: WriteOrigin, session: string) => Promise<WriteResult>,
): Promise<PurgeResult> {
  const sessions: string[] = [];
  for (const s of candidates) if (await mayAccess(store, request, s, 'manager')) sessions.push(s);
  const origin = writeOriginOf(request);
  const written = await Promise.all(sessions.map((s) => write(origin, s)));
  if (written.some((w) => w.kind === 'accepted'))
    return { kind: 'accepted', requestIds: written.map((w) => w.requestId) };
  const outcomes = written.flatMap((w) => (w.kind === 'done' ? [w.outcome] : []));
  for (const o of outcomes) if (o.status === 'failed' && o.error_code !== 'RESOURCE_NOT_FOUND') throw outcomeError(o);
  return { kind: 'done', sessions, outcomes };
}
