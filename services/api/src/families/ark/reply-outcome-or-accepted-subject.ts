import { outcomeError, type WriteResult } from '@memstream/ingest';
import type { RequestOutcome } from '@memstream/schemas';
import type { FastifyReply } from 'fastify';

/**
 * How every ARK write answers once the write path returns: 202 `{status: "accepted", ...subject,
 * request_id}` when the wait ended before the store did (Kafka has it); the converter's refusal as
 * an error in ARK's shape; else 200 with what `answered` makes of the stored outcome.
 */
export async function replyOutcomeOrAcceptedSubject(
  reply: FastifyReply,
  written: WriteResult,
  subject: Readonly<Record<string, unknown>>,
  answered: (outcome: RequestOutcome, requestId: string) => unknown,
): Promise<FastifyReply> {
  if (written.kind === 'accepted')
    return reply.status(202).send({ status: 'accepted', ...subject, request_id: written.requestId });
  if (written.outcome.status === 'failed') throw outcomeError(written.outcome);
  return reply.status(200).send(await answered(written.outcome, written.requestId));
}
