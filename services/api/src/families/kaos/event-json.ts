import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { kaosEventBytes, type KaosEventRow, type Store } from '@memstream/store';
import { KAOS_MAX_CONTENT_BYTES } from '@memstream/schemas';
import { eventRanges, type EventRanges } from './event-ranges.js';

/**
 * Events keep the JSON text their client wrote for content and metadata, from the request body to
 * the answer: JSON.parse and JSON.stringify on the way would turn Python's 8.0 into 8, round
 * integers past 2^53 and drop the sign of -0.0.
 */
const RAW_BODY = Symbol('raw body');
const RANGES = Symbol('event ranges');
type WithRawBody = FastifyRequest & { [RAW_BODY]?: Buffer; [RANGES]?: EventRanges[] | undefined };

/**
 * A preParsing hook: the body is read whole here and kept beside the parse, and content past the
 * limit is refused on its byte range before the JSON parser sees any of it, so an oversized body
 * costs one pass over its bytes, not a value per number (issue 49: 9.8 MB of small numbers).
 */
export async function keepRawBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: Readable & { receivedEncodedLength?: number },
): Promise<Readable> {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const parts: Buffer[] = [];
  let size = 0;
  let refused = false;
  const copy = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  const refuse = (err: Error) => {
    refused = true;
    parts.length = 0;
    copy.destroy(err);
  };
  payload.on('data', (part: Buffer) => {
    if (refused) return;
    size += part.length;
    // held here, not streamed on: the limit fastify applies as it reads is applied here instead
    if (size > limit) refuse(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`));
    else parts.push(part);
  });
  payload.on('end', () => {
    if (refused) return;
    const raw = Buffer.concat(parts);
    const r = request as WithRawBody;
    try {
      r[RANGES] = eventRanges(raw);
      if (r[RANGES]) checkContentSize(r[RANGES]);
    } catch (err) {
      return refuse(err as Error);
    }
    r[RAW_BODY] = raw;
    copy.receivedEncodedLength = payload.receivedEncodedLength;
    copy.end(raw);
  });
  payload.on('error', (err) => copy.destroy(err));
  return copy;
}

/** The content and metadata texts of each event of the body (one event or a list), in order. */
export function rawEventTexts(request: FastifyRequest): Array<{ content: string; metadata?: string }> | undefined {
  const { [RAW_BODY]: raw, [RANGES]: ranges } = request as WithRawBody;
  if (raw === undefined || ranges === undefined) return undefined;
  return ranges.map(({ content, metadata }) => ({
    content: content ? raw.toString('utf8', content.start, content.end) : 'null',
    ...(metadata ? { metadata: raw.toString('utf8', metadata.start, metadata.end) } : {}),
  }));
}

/** Refuses content past one Kafka record's worth, naming the event and the limit. */
function checkContentSize(events: readonly EventRanges[]): void {
  for (const [i, { content }] of events.entries()) {
    const bytes = content ? content.end - content.start : 0;
    if (bytes > KAOS_MAX_CONTENT_BYTES)
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `Data format error: content of event ${i} is ${bytes} bytes of JSON; an event holds at most ${KAOS_MAX_CONTENT_BYTES} (one Kafka record)`,
        { details: { field: events.length > 1 ? `events.${i}.content` : 'content' } },
      );
  }
}

/** One event as MemoryEvent.to_dict writes it, content and metadata as stored. */
function eventJson(e: KaosEventRow): string {
  return `{"event_id":${JSON.stringify(e.event_id)},"timestamp":${JSON.stringify(e.timestamp)},"event_type":${JSON.stringify(e.event_type)},"content":${e.content_json},"metadata":${e.metadata_json}}`;
}

// NUL is never stored (see the id rule), so this text cannot be a value of the answer.
const EVENTS_HERE = '\u0000events\u0000';

/** Sends `body` with `events` in its `events` field, written without reparsing them. */
export function sendWithEvents(
  reply: FastifyReply,
  body: Record<string, unknown>,
  events: readonly KaosEventRow[],
): FastifyReply {
  const text = JSON.stringify({ ...body, events: EVENTS_HERE }).replace(
    JSON.stringify(EVENTS_HERE),
    () => `[${events.map(eventJson).join(',')}]`,
  );
  return reply.type('application/json; charset=utf-8').send(text);
}

/** What one read of a session's events may send: they are held whole in memory, once as rows and once as the answer. */
export const KAOS_READ_MAX_BYTES = 64 * 1024 * 1024;

/** Refuses a read of a session's events past KAOS_READ_MAX_BYTES before any of them is read. */
export async function refuseLargeRead(
  store: Store,
  conversationId: string,
  types?: readonly string[],
  maxBytes = KAOS_READ_MAX_BYTES,
): Promise<void> {
  const bytes = await kaosEventBytes(store, conversationId, types);
  if (bytes > maxBytes)
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The session's events are ${bytes} bytes of JSON; a read sends at most ${maxBytes}: ask for some types (event_types)`,
      { details: { field: 'event_types' } },
    );
}
