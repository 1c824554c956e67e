import type { HandlerContext } from '@memstream/bus';
import { appendStreamChunks, recordRequestOutcomes, streamChunksBefore } from '@memstream/store';
import { liveChannelOf, type ArkStreamChunksReceived, type LiveEvent, type RequestOutcome } from '@memstream/schemas';
import { gateByActor } from '../access-gate.js';
import { applyOnce } from './apply-once.js';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';

/**
 * Relayed ARK token chunks: kept for readers who reconnect from the beginning, numbered, and sent
 * to every live reader. Kept once: the chunks and the outcome (their numbers) are written in one
 * transaction, so a redelivered relay finds its numbers and only sends them again, which streams
 * drop by number. A person writes to sessions they are a writer of, or claims a new id, as for
 * messages.
 */
export function handleArkChunks(deps: ConverterDeps) {
  return async (batch: readonly ArkStreamChunksReceived[], ctx: HandlerContext): Promise<void> => {
    const { admitted, refused } = await gateByActor(deps.store, batch, (e) => e.data.session_id, refusalOf);
    if (refused.length > 0) await recordRequestOutcomes(deps.store, refused);
    const outcomes = await applyOnce(deps.store, admitted, async (tx, event) => ({
      ...base(event),
      status: 'stored' as const,
      result: { chunk_seqs: await appendStreamChunks(tx, event.data.session_id, event.data.chunks) },
    }));
    const seqsOf = outcomes.map((outcome) => (outcome.result?.['chunk_seqs'] as number[] | undefined) ?? []);
    // Each chunk names the one before it in its session, so a reader can tell it missed one. Read
    // after the commits, for the batch at once, also for a redelivered relay (its outcome keeps
    // only its numbers).
    const relayed = seqsOf.flatMap((seqs, i) =>
      seqs.length > 0 ? [{ event: admitted[i]!, seqs, sessionId: admitted[i]!.data.session_id, seq: seqs[0]! }] : [],
    );
    const before = await streamChunksBefore(deps.store, relayed);
    for (const [i, { event, seqs }] of relayed.entries()) {
      let prev = before[i] ?? null;
      for (const [j, chunk] of event.data.chunks.entries()) {
        const live: LiveEvent = { type: 'chunk', chunk_seq: seqs[j]!, prev_chunk_seq: prev, chunk };
        prev = seqs[j]!;
        await deps.fanout.publish(liveChannelOf(event.data.session_id), JSON.stringify(live)).catch((err: unknown) => {
          ctx.log.warn(
            { err, session: event.data.session_id },
            'live chunk notice failed; streams catch up at their next heartbeat',
          );
        });
      }
    }
    await announce(deps.fanout, [...refused, ...outcomes], ctx.log);
    ctx.log.info(
      { relays: admitted.length, refused: refused.length, correlationIds: ctx.correlationIds },
      'ark chunks kept',
    );
  };
}

function refusalOf(event: ArkStreamChunksReceived, code: string, message: string): RequestOutcome {
  return { ...base(event), status: 'failed', error_code: code, error_message: message };
}

function base(event: ArkStreamChunksReceived): RequestOutcome {
  return {
    request_id: event.id,
    kind: 'conversation',
    status: 'stored',
    group_id: event.data.session_id,
    message_id: null,
    duplicate: false,
    result: null,
    error_code: null,
    error_message: null,
  };
}
