import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { inCauseChain, isAppError, isUnavailable } from '@memstream/errors';
import type { ErrorShape, PublicError } from './error-shapes/error-shape.js';

/**
 * Turns any thrown error into the family's shape. Client errors keep their message; server errors
 * are logged with the error and answered with a fixed message, so no internals leak.
 */
export function toPublicError(err: unknown): PublicError {
  if (isAppError(err)) {
    const safe = err.statusCode < 500 || err.statusCode === 503 || err.statusCode === 504;
    return {
      code: err.code,
      statusCode: err.statusCode,
      message: safe ? err.message : 'Internal error, please try again later',
      details: safe ? err.details : undefined,
    };
  }
  const fe = err as Partial<FastifyError>;
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { code: 'PAYLOAD_TOO_LARGE', statusCode: 413, message: 'Request body is too large' };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // fastify's own client errors: malformed JSON, wrong content type, empty body
    return { code: 'INVALID_PARAMETER', statusCode: 400, message: `Invalid request: ${fe.message ?? 'bad request'}` };
  }
  // A store or broker that went away under a call is an outage the client can wait out, not a
  // fault in its request or in us: 503 with Retry-After, as a refused write already answers.
  if (isUnavailable(err)) {
    return {
      code: 'DEPENDENCY_UNAVAILABLE',
      statusCode: 503,
      message: 'A service this call needs is unavailable, please retry later',
    };
  }
  // PostgreSQL cancelled a statement that ran past its statement_timeout (57014): the store is
  // too loaded, or the call too broad, to answer in time. The request is not at fault and we are
  // not broken, so 503 with Retry-After; the code is the one for an outage, because a write cut
  // this way may have committed an earlier transaction and is "unsure", not "refused".
  if (inCauseChain(err, (e) => e.code === STATEMENT_CANCELLED)) {
    return {
      code: 'DEPENDENCY_UNAVAILABLE',
      statusCode: 503,
      message: 'The store did not answer within its time limit, please retry later or narrow the call',
    };
  }
  return { code: 'SYSTEM_ERROR', statusCode: 500, message: 'Internal error, please try again later' };
}

/** SQLSTATE query_canceled: statement_timeout, or a cancel request. */
const STATEMENT_CANCELLED = '57014';

export function errorHandlerFor(shape: ErrorShape) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const pub = toPublicError(err);
    if (pub.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: pub.code, reason: pub.message }, 'request rejected');
    if (pub.statusCode === 503 || pub.statusCode === 429) void reply.header('Retry-After', '5');
    return reply.status(pub.statusCode).send(shape(pub, request));
  };
}
