import { publishEvents, type HandlerContext } from '@memstream/bus';
import { appendByShardGroup, findRequestOutcomes, recordRequestOutcomes, type AppendResult } from '@memstream/store';
import {
  TOPICS,
  senderRefusal,
  type ArkInput,
  type ArkMessagesReceived,
  type ArkSessionCompleted,
  type ArkStreamChunksReceived,
  type ArkStreamPurged,
  type MessageStored,
  type RequestOutcome,
} from '@memstream/schemas';
import { fromArkMessages } from '../mappers/ark.js';
import { storedEvent } from '../stored-event.js';
import { publishLiveMessages } from '../live-messages.js';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';
import { gateByActor } from '../access-gate.js';
import { handleArkCompletions } from './ark-completion.js';
import { handleArkChunks } from './ark-chunks.js';
import { handleArkStreamPurges } from './ark-stream-purge.js';

/**
 * Consecutive events of the ARK input topic: message batches first, then relayed chunks, then
 * completions, so a session's completion never overtakes what was sent before it (they share the
 * partition, and a completion that arrives with later messages of the same flush still ends the
 * streams after them). Messages and chunks keep their own orders; between the two, a flush puts
 * messages first, as readers replaying from the beginning see them. A stream purge is a barrier:
 * what came before it is applied first, then the purge, then what came after (chunks relayed
 * after a purge survive it).
 */
export function handleArkBatch(deps: ConverterDeps) {
  const messages = handleArkMessages(deps);
  const chunks = handleArkChunks(deps);
  const completions = handleArkCompletions(deps);
  const purges = handleArkStreamPurges(deps);
  const applyRun = async (run: readonly ArkInput[], ctx: HandlerContext): Promise<void> => {
    const received = run.filter((e): e is ArkMessagesReceived => e.type === 'ark.messages.received');
    const relayed = run.filter((e): e is ArkStreamChunksReceived => e.type === 'ark.stream.chunks');
    const completed = run.filter((e): e is ArkSessionCompleted => e.type === 'ark.session.completed');
    if (received.length > 0) await messages(received, ctx);
    if (relayed.length > 0) await chunks(relayed, ctx);
    if (completed.length > 0) await completions(completed, ctx);
  };
  return async (batch: readonly ArkInput[], ctx: HandlerContext): Promise<void> => {
    let run: ArkInput[] = [];
    let purging: ArkStreamPurged[] = [];
    for (const event of batch) {
      if (event.type === 'ark.stream.purged') {
        if (run.length > 0) await applyRun(run, ctx);
        run = [];
        purging.push(event);
        continue;
      }
      if (purging.length > 0) await purges(purging, ctx);
      purging = [];
      run.push(event);
    }
    if (run.length > 0) await applyRun(run, ctx);
    if (purging.length > 0) await purges(purging, ctx);
  };
}

/**
 * ARK batches: each event's messages are stored whole and in order in one statement with the
 * other events of the flush; the batch's outcome rides on its first message. New messages go to
 * the session's live channel BEFORE the outcome is announced, so a `complete` that a client sends
 * after its POST returned can never overtake the messages on a stream.
 */
function handleArkMessages(deps: ConverterDeps) {
  return async (batch: readonly ArkMessagesReceived[], ctx: HandlerContext): Promise<void> => {
    const { admitted: events, refused } = await gateByActor(
      deps.store,
      batch,
      (e) => e.data.session_id,
      refusalOf,
      ownRefusal,
    );
    if (refused.length > 0) await recordRequestOutcomes(deps.store, refused);
    const perEvent = events.map(fromArkMessages);
    const results = await appendByShardGroup(
      deps.store,
      perEvent.flatMap((messages, e) =>
        messages.map((message, i) => (i === 0 ? { message, requestId: events[e]!.id } : { message })),
      ),
      deps.shardGroups,
    );
    const byEvent: AppendResult[][] = [];
    let at = 0;
    for (const messages of perEvent) {
      byEvent.push(results.slice(at, at + messages.length));
      at += messages.length;
    }

    const earlier = await findRequestOutcomes(
      deps.store,
      events.filter((_, e) => !byEvent[e]![0]!.outcomeRecorded).map((e) => e.id),
    );
    const outcomes: RequestOutcome[] = events.flatMap((event, e): RequestOutcome[] => {
      const stored = byEvent[e]!;
      if (!stored[0]!.outcomeRecorded) return earlier.has(event.id) ? [earlier.get(event.id)!] : [];
      return [
        {
          request_id: event.id,
          kind: 'message' as const,
          status: 'stored' as const,
          group_id: event.data.session_id,
          message_id: stored[0]!.message.message_id,
          duplicate: stored.every((r) => r.duplicate),
          result: { sequence: stored[0]!.message.seq, count: stored.length },
          error_code: null,
          error_message: null,
        },
      ];
    });

    await publishLiveMessages(
      deps.fanout,
      results.filter((r) => !r.duplicate).map((r) => r.message),
      ctx.log,
    );

    const now = new Date().toISOString();
    const storedEvents: MessageStored[] = byEvent.flatMap((stored, e) => {
      const correlationId = events[e]!.correlation_id;
      return stored.map(({ message }) => storedEvent(message, correlationId, now));
    });
    await Promise.all([
      publishEvents(deps.bus, TOPICS.messagesStored, storedEvents),
      announce(deps.fanout, [...refused, ...outcomes], ctx.log),
    ]);
    ctx.log.info(
      {
        events: events.length,
        refused: refused.length,
        messages: results.length,
        stored: results.filter((r) => !r.duplicate).length,
        correlationIds: ctx.correlationIds,
      },
      'ark batch stored',
    );
  };
}

/** A person's batch naming someone else as a message's sender (see senderRefusal). */
function ownRefusal(event: ArkMessagesReceived): string | undefined {
  for (const [i, message] of event.data.messages.entries()) {
    const refused = senderRefusal(event.actor, message['name'], `messages[${i}].name`);
    if (refused !== undefined) return refused;
  }
  return undefined;
}

function refusalOf(event: ArkMessagesReceived, code: string, message: string): RequestOutcome {
  return {
    request_id: event.id,
    kind: 'message',
    status: 'failed',
    group_id: event.data.session_id,
    message_id: null,
    duplicate: false,
    result: null,
    error_code: code,
    error_message: message,
  };
}
