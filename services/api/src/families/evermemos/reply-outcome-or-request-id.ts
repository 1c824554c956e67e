import type { FastifyReply } from 'fastify';
import { outcomeError, type WriteResult } from '@memstream/ingest';
import type { RequestOutcome } from '@memstream/schemas';
import { acceptedReply } from './accepted-reply.js';

/**
 * How every EverMemOS write answers once the write path returns: 202 with the request id when
 * the wait ended before the store did (or `sync_mode=false`); the converter's refusal as an error
 * in the family's envelope; else 200 with what `answered` makes of the stored outcome.
 */
export async function replyOutcomeOrRequestId(
  reply: FastifyReply,
  written: WriteResult,
  answered: (outcome: RequestOutcome, requestId: string) => unknown,
): Promise<FastifyReply> {
  if (written.kind === 'accepted') return reply.status(202).send(acceptedReply(written.requestId));
  if (written.outcome.status === 'failed') throw outcomeError(written.outcome);
  return reply.status(200).send(await answered(written.outcome, written.requestId));
}
