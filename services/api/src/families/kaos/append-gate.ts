import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import type { Store } from '@memstream/store';
import { mayAccess } from '../../shared/access.js';
import { sessionIdOf, type KaosOps } from './kaos-ops.js';

/**
 * The append's first step, a preParsing hook: the session must exist and the caller may write it
 * before a byte of the body is read, so a body meant for a session the caller cannot write costs
 * the server nothing (issue 49: a 9.8 MB body to a session that did not exist held the process for
 * 30 s before its refusal). A member below writer is told what the converter would tell them: the
 * session is not found. The converter checks again on what it applies.
 */
export function sessionWritable(ops: KaosOps, store: Store) {
  return async (request: FastifyRequest): Promise<void> => {
    const sessionId = sessionIdOf(request);
    const session = await ops.session(request, sessionId);
    if (!(await mayAccess(store, request, session.conversation_id, 'writer')))
      throw new AppError('RESOURCE_NOT_FOUND', `Session not found: ${sessionId}`);
  };
}
