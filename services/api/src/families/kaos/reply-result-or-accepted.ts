import type { FastifyReply } from 'fastify';
import { outcomeError, type WriteResult } from '@memstream/ingest';

/**
 * What a KAOS write's outcome is once the write path returns: its result, or undefined when the
 * wait ended before the converter applied it (the write is in Kafka and will be applied); the
 * converter's refusal as an error in KAOS's shape.
 */
export function outcomeOf(written: WriteResult): Record<string, unknown> | undefined {
  if (written.kind === 'accepted') return undefined;
  if (written.outcome.status === 'failed') throw outcomeError(written.outcome);
  return written.outcome.result ?? {};
}

/** How every KAOS write answers: its result with `status`, or 202 `{...pending, status: "accepted"}` while it is still being applied. */
export function replyResultOrAccepted(
  reply: FastifyReply,
  result: Record<string, unknown> | undefined,
  status = 200,
  pending: Record<string, unknown> = {},
): FastifyReply {
  if (result === undefined) return reply.code(202).send({ ...pending, status: 'accepted' });
  return reply.code(status).send(result);
}
