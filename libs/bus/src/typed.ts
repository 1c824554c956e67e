import { isUtf8 } from 'node:buffer';
import { AppError } from '@memstream/errors';
import { CORRELATION_ID_MAX_CHARS, describeJsonProblem, jsonProblem, MAX_RECORD_DEPTH } from '@memstream/schemas';
import {
  CORRELATION_HEADER,
  type Bus,
  type BusRecord,
  type DeadLetterListener,
  type HandlerContext,
  type OutgoingRecord,
  type RetryPolicy,
  type Subscription,
} from './bus.js';

/** What the bus needs of a topic from the catalogue in @memstream/schemas (structural, no zod here). */
export interface TypedTopic<E> {
  readonly name: string;
  readonly dlq: string;
  readonly schema: {
    safeParse(value: unknown): { success: true; data: E } | { success: false; error: { message: string } };
  };
  readonly keyOf: (event: E) => string;
  /** Written by producers other than ours: each record's JSON is checked before the schema (see decodeRecord). */
  readonly publicInput?: boolean;
}

/** Publishes events of one topic, keyed as the topic says, with the correlation id as a header. */
export async function publishEvents<E extends { correlation_id?: string | undefined }>(
  bus: Bus,
  topic: TypedTopic<E>,
  events: readonly E[],
): Promise<void> {
  await bus.publish(
    topic.name,
    events.map((event) => serializeEvent(topic, event)),
  );
}

/** The record an event becomes; callers that must look at the bytes first (a size limit) use it directly. */
export function serializeEvent<E extends { correlation_id?: string | undefined }>(
  topic: TypedTopic<E>,
  event: E,
): OutgoingRecord & { value: string } {
  return { key: topic.keyOf(event), value: JSON.stringify(event), headers: correlationHeaders(event.correlation_id) };
}

function correlationHeaders(id: string | undefined): Record<string, string> {
  return id ? { [CORRELATION_HEADER]: id } : {};
}

/**
 * A direct producer may set the correlation header and leave the envelope's `correlation_id`
 * out; the event then takes the header's, so handlers that publish downstream events pass it on
 * whichever way it came. An id in the envelope is kept as it is.
 */
function withHeaderCorrelation<E>(event: E, record: BusRecord): E {
  const header = record.headers[CORRELATION_HEADER];
  if (!header || event === null || typeof event !== 'object' || 'correlation_id' in event) return event;
  // Held to the envelope field's limit, which it fills: downstream events carry it, and their
  // schemas would refuse a longer one after this record was stored.
  if (header.length > CORRELATION_ID_MAX_CHARS)
    throw new AppError(
      'INVALID_EVENT',
      `header ${CORRELATION_HEADER} has ${header.length} characters; at most ${CORRELATION_ID_MAX_CHARS}, as correlation_id`,
    );
  return { ...event, correlation_id: header };
}

/**
 * A record's event, or the non-retriable error that dead-letters it: not JSON, a public input's
 * JSON that would not be kept as written, or not the topic's schema. On a public input topic,
 * JSON.parse would hand the schema a `__proto__` key it drops (zod's records copy by assignment)
 * and a number past a double's range as Infinity, which is stored as null: the HTTP API refuses
 * both with a 400, so a direct producer's record gets the same rule, as a dead letter with the
 * field named. Nesting is bounded too, at MAX_RECORD_DEPTH (deeper than any body the API takes).
 */
export function decodeRecord<E>(topic: TypedTopic<E>, record: BusRecord, maxRecordBytes = Number.POSITIVE_INFINITY): E {
  if (record.value.length > maxRecordBytes)
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `record value is ${record.value.length} bytes; ${topic.name} takes at most ${maxRecordBytes}, so that the events made from it fit the broker's limit`,
    );
  let json: unknown;
  try {
    json = JSON.parse(textOf(record));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('INVALID_EVENT', 'record value is not JSON');
  }
  if (topic.publicInput) {
    const problem = jsonProblem(json, { maxDepth: MAX_RECORD_DEPTH });
    if (problem)
      throw new AppError(
        'INVALID_EVENT',
        `event on ${topic.name} would not be kept as written: ${describeJsonProblem(problem, { what: 'the record', maxDepth: MAX_RECORD_DEPTH }).message}`,
      );
  }
  const parsed = topic.schema.safeParse(json);
  if (!parsed.success)
    throw new AppError('INVALID_EVENT', `event does not match ${topic.name}: ${parsed.error.message}`);
  return withHeaderCorrelation(parsed.data, record);
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A record's value as JSON text. Bytes that are not UTF-8 are refused: decoding would put U+FFFD
 * in their place, and the stored text would differ from what the producer wrote. A UTF-8 byte
 * order mark, which some producers' serializers write, is not part of the value and is skipped
 * (RFC 8259 lets a parser ignore it). A record framed by a schema registry (a zero byte, then a
 * four-byte schema id) is named as such, since its producer's serializer is the thing to change.
 */
function textOf(record: BusRecord): string {
  const value = record.value;
  if (record.tombstone)
    throw new AppError('INVALID_EVENT', 'record value is null (a tombstone): an event is a JSON object');
  if (value.length >= 5 && value[0] === 0 && value[5] === 0x7b)
    throw new AppError(
      'INVALID_EVENT',
      `record value starts with a schema registry frame (magic byte 0, schema id ${value.readUInt32BE(1)}): send the JSON text alone, without a registry serializer`,
    );
  if (!isUtf8(value)) throw new AppError('INVALID_EVENT', 'record value is not valid UTF-8: JSON text must be UTF-8');
  const start = value.subarray(0, 3).equals(BOM) ? 3 : 0;
  return value.toString('utf8', start);
}

/**
 * Decodes and validates each record before the handler sees it. A record that is not JSON or
 * does not match the topic's schema is a poison event: it fails with a non-retriable error and
 * goes to the dead-letter topic with the validation message as its reason. With a batch handler,
 * a batch holding a poison event fails as a whole and the bus falls back to one-by-one delivery,
 * so only the poison event is dead-lettered.
 */
export function subscribeEvents<E>(
  bus: Bus,
  topic: TypedTopic<E>,
  options: {
    groupId: string;
    retry: RetryPolicy;
    partitionsConcurrently?: number;
    handler: (event: E, ctx: HandlerContext) => Promise<void>;
    batchHandler?: (events: readonly E[], ctx: HandlerContext) => Promise<void>;
    maxBatchSize?: number;
    lingerMs?: number;
    onDeadLetter?: DeadLetterListener;
    /**
     * Records larger than this are refused before the handler sees them (see
     * inputRecordMaxBytes): the input topics' consumer sets it, so that what a record becomes
     * downstream still fits the broker.
     */
    maxRecordBytes?: number;
  },
): Promise<Subscription> {
  const decode = (record: BusRecord): E => decodeRecord(topic, record, options.maxRecordBytes);
  const { batchHandler } = options;
  return bus.subscribe({
    groupId: options.groupId,
    topic: topic.name,
    dlqTopic: topic.dlq,
    retry: options.retry,
    ...(options.partitionsConcurrently === undefined ? {} : { partitionsConcurrently: options.partitionsConcurrently }),
    ...(options.maxBatchSize === undefined ? {} : { maxBatchSize: options.maxBatchSize }),
    ...(options.lingerMs === undefined ? {} : { lingerMs: options.lingerMs }),
    ...(options.onDeadLetter === undefined ? {} : { onDeadLetter: options.onDeadLetter }),
    handler: async (record, ctx) => options.handler(decode(record), ctx),
    ...(batchHandler === undefined
      ? {}
      : { batchHandler: async (records, ctx) => batchHandler(records.map(decode), ctx) }),
  });
}
