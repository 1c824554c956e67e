import { AppError } from '@memstream/errors';
import { outcomeError, type WriteResult } from '@memstream/ingest';
import type { RequestOutcome } from '@memstream/schemas';

/** A write that outlasted the sync wait: Kafka has it and it will be applied; the client may read it back later. */
export class StillApplying {
  constructor(readonly requestId: string) {}
}

/**
 * How every memory-service write answers once the write path returns: StillApplying when the
 * wait ended before the converter applied it (the handlers answer 202 with its request id); the
 * converter's refusal as an error in the family's shape, a missing conversation named as the
 * memory-service names it; else the applied outcome, which the handler shapes in its layout.
 */
export function outcomeOrStillApplying(written: WriteResult, conversationId: string): RequestOutcome | StillApplying {
  if (written.kind === 'accepted') return new StillApplying(written.requestId);
  if (written.outcome.status === 'failed') {
    const err = outcomeError(written.outcome);
    throw err.code === 'RESOURCE_NOT_FOUND'
      ? new AppError(err.code, err.message, { details: { resource: 'conversation', id: conversationId } })
      : err;
  }
  return written.outcome;
}
