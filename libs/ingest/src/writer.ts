import { randomUUID } from 'node:crypto';
import { serializeEvent, type Bus, type TypedTopic } from '@memstream/bus';
import { AppError } from '@memstream/errors';
import type { Fanout, RequestLedger } from '@memstream/fanout';
import { inputRecordMaxBytes, type Actor, type RequestOutcome } from '@memstream/schemas';
import type { Principal } from '@memstream/auth';
import { OutcomeWaiter } from './outcome-waiter.js';
import { actorOf } from './actor.js';

export interface WriteSettings {
  readonly syncTimeoutMs: number;
  readonly maxInFlight: number;
  readonly maxEventBytes: number;
}

/** The outcome the converter recorded for a request (its row in the store), if any yet. */
export type OutcomeLookup = (requestId: string) => Promise<RequestOutcome | undefined>;

export interface WriteDeps {
  readonly bus: Bus;
  readonly ledger: RequestLedger;
  readonly waiter: OutcomeWaiter;
  /** Read once when a held call's wait ends without a notice (see lastLook). */
  readonly lookup: OutcomeLookup;
  readonly settings: WriteSettings;
}

/**
 * Who asked for a write, in plain values (the HTTP layer makes it from its request: see
 * writeOriginOf in @memstream/http): the id that follows the write through Kafka, the caller
 * whose memberships the converter checks, and the request's logger.
 */
export interface WriteOrigin {
  readonly correlationId: string;
  readonly principal: Principal;
  readonly log: { warn(fields: object, message: string): void };
}

export type WriteResult =
  | { readonly kind: 'done'; readonly requestId: string; readonly outcome: RequestOutcome }
  | { readonly kind: 'accepted'; readonly requestId: string };

/** An input topic's events: the envelope the writer completes, and the key that orders them. */
type Envelope = {
  id: string;
  type: string;
  occurred_at: string;
  correlation_id?: string | undefined;
  source?: string | undefined;
  actor?: Actor | undefined;
  data: unknown;
};

/**
 * The one path every write takes: admit (or refuse with 503 when too many are open), publish the
 * event to the input topic with a fresh request id as its event id, remember it as accepted,
 * then, in sync mode, hold the call until the converter announces the outcome or the wait ends
 * (then the outcome row is read once: see lastLook).
 * The request id is both what the client polls and the idempotency key of the event.
 */
export function createWriter(deps: WriteDeps) {
  let inFlight = 0;
  return async function write<E extends Envelope>(
    origin: WriteOrigin,
    topic: TypedTopic<E>,
    body: Pick<E, 'type' | 'data'> & { source: string },
    sync: boolean,
  ): Promise<WriteResult> {
    if (inFlight >= deps.settings.maxInFlight) {
      throw new AppError('OVERLOADED', 'Gateway overloaded, please retry later');
    }
    const requestId = randomUUID();
    const actor = actorOf(origin.principal);
    const event = {
      id: requestId,
      occurred_at: new Date().toISOString(),
      correlation_id: origin.correlationId,
      ...(actor ? { actor } : {}),
      ...body,
    } as E;
    // Every consumer validates what it reads against the topic's schema and dead-letters what
    // fails; an event the schema refuses is refused here instead, before it is published, so
    // nothing the HTTP layer accepted is lost after the client was told it was taken.
    const checked = topic.schema.safeParse(event);
    if (!checked.success) throw unpublishable(checked.error);
    const record = serializeEvent(topic, event);
    if (Buffer.byteLength(record.value) > deps.settings.maxEventBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `Message too large: the broker takes at most ${deps.settings.maxEventBytes} bytes per event`,
      );
    }

    inFlight++;
    const pending = sync ? deps.waiter.expect(requestId, deps.settings.syncTimeoutMs) : undefined;
    try {
      try {
        await withinDeadline(deps.bus.publish(topic.name, [record]), publishDeadlineMs(deps.settings));
      } catch (err) {
        pending?.cancel();
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'Message broker unavailable, please retry later', { cause: err });
      }
      // Only a status lookup depends on the marker (the write is already safe in the log), so it
      // is set while the call waits, and is in place before a 202 tells the client to poll.
      const marked = deps.ledger
        .markAccepted(requestId)
        .catch((err: unknown) => origin.log.warn({ err }, 'could not mark request accepted'));
      const [, heard] = await Promise.all([marked, pending?.result]);
      // A zero wait (REQUEST_SYNC_TIMEOUT_MS=0) asks for no waiting: answered 202 without a look.
      const look = pending !== undefined && deps.settings.syncTimeoutMs > 0;
      const outcome = heard ?? (look ? await lastLook(deps.lookup, requestId, origin) : undefined);
      return outcome ? { kind: 'done', requestId, outcome } : { kind: 'accepted', requestId };
    } finally {
      inFlight--;
    }
  };
}

export type Writer = ReturnType<typeof createWriter>;

/**
 * A held call whose wait ended without the converter's notice reads the outcome row before it
 * answers 202: the row is written in the transaction that stores the message, so when it is
 * there the write is done, and the client is told so rather than sent to poll. The notice can
 * be late (a converter transaction that committed just as the wait ended, a loaded machine) or
 * lost (the fan-out is fire-and-forget). One read, and only on a timeout; a failed read answers
 * 202 as before.
 */
async function lastLook(
  lookup: OutcomeLookup,
  requestId: string,
  origin: WriteOrigin,
): Promise<RequestOutcome | undefined> {
  try {
    const stored = await lookup(requestId);
    if (!stored) return undefined;
    return {
      request_id: stored.request_id,
      kind: stored.kind,
      status: stored.status,
      group_id: stored.group_id,
      message_id: stored.message_id,
      duplicate: stored.duplicate,
      result: stored.result,
      error_code: stored.error_code,
      error_message: stored.error_message,
    };
  } catch (err) {
    origin.log.warn({ err }, 'could not read the request outcome after the wait; answering 202');
    return undefined;
  }
}

/**
 * The 400 for an event its topic would refuse. The routes check what the client sent in the
 * family's own words first; this is the net under them, naming the field of the event's data
 * (which is the request's, where a route publishes the body as given) and never the topic or
 * the schema.
 */
function unpublishable(error: { message: string }): AppError {
  const issue = (error as { issues?: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }> }).issues?.[0];
  const path = issue?.path ?? [];
  const field = (path[0] === 'data' ? path.slice(1) : path).map(String).join('.') || 'request';
  return new AppError(
    'INVALID_PARAMETER',
    `Data format error: invalid field ${field}: ${issue?.message ?? 'not valid'}`,
    { details: { field } },
  );
}

/**
 * How long a write waits for the broker's acknowledgement before it answers 503. The producer
 * itself retries for much longer while a broker is down; a client is better told to retry now
 * (its retry carries the same message id, so a record that does land late is stored once).
 */
function publishDeadlineMs(settings: WriteSettings): number {
  return Math.max(1000, settings.syncTimeoutMs);
}

/** The promise, or a rejection once `ms` passed (the work itself goes on: it cannot be taken back). */
function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no acknowledgement from the broker within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** A failed outcome as the client's error: its own code when it is a client error, else a 500 without internals. */
export function outcomeError(outcome: RequestOutcome): AppError {
  const message = outcome.error_message ?? 'Invalid request';
  switch (outcome.error_code) {
    case 'RESOURCE_NOT_FOUND':
    case 'FORBIDDEN':
    case 'CONFLICT':
    case 'INVALID_PARAMETER':
      return new AppError(outcome.error_code, message);
    case 'INVALID_EVENT':
      // The consumer's decoding names the topic and its schema: internals a client must not see.
      return new AppError('INVALID_PARAMETER', 'Data format error: the request could not be applied as sent');
    default:
      return new AppError('SYSTEM_ERROR', 'Failed to store memory, please try again later');
  }
}

/** The write path's settings from a service's configuration. */
export function writeSettingsOf(config: {
  REQUEST_SYNC_TIMEOUT_MS: number;
  GATEWAY_MAX_IN_FLIGHT: number;
  KAFKA_MAX_MESSAGE_BYTES: number;
}): WriteSettings {
  return {
    syncTimeoutMs: config.REQUEST_SYNC_TIMEOUT_MS,
    maxInFlight: config.GATEWAY_MAX_IN_FLIGHT,
    // every write goes to an input topic, which takes records below the broker's limit
    maxEventBytes: inputRecordMaxBytes(config.KAFKA_MAX_MESSAGE_BYTES),
  };
}

/**
 * The write path of a process: listens for outcomes on the fan-out and returns the writer every
 * write route shares. `stop` ends the listening (held calls answer 202).
 */
export async function startWriter(deps: {
  bus: Bus;
  fanout: Fanout;
  ledger: RequestLedger;
  lookup: OutcomeLookup;
  settings: WriteSettings;
  log: { warn(msg: string): void };
}): Promise<{ write: Writer; stop: () => Promise<void> }> {
  const { waiter, stop } = await OutcomeWaiter.listen(deps.fanout, deps.log);
  return {
    write: createWriter({ bus: deps.bus, ledger: deps.ledger, waiter, lookup: deps.lookup, settings: deps.settings }),
    stop,
  };
}
