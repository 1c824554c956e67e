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
type WithRawBody = FastifyRequest & { [RAW_BODY]?: Buffer };

/** A preParsing hook: the body is parsed as usual, and its bytes are kept beside it. */
export async function keepRawBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: Readable & { receivedEncodedLength?: number },
): Promise<Readable> {
  const parts: Buffer[] = [];
  const copy = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  payload.on('data', (part: Buffer) => {
    parts.push(part);
    copy.receivedEncodedLength = payload.receivedEncodedLength;
  });
  payload.on('end', () => ((request as WithRawBody)[RAW_BODY] = Buffer.concat(parts)));
  payload.on('error', (err) => copy.destroy(err));
  payload.pipe(copy);
  return copy;
}

/**
 * The content and metadata texts of each event of the body (one event or a list), in order.
 * Content past the limit is refused on its byte range, before any text is decoded (see eventRanges).
 */
export function rawEventTexts(request: FastifyRequest): Array<{ content: string; metadata?: string }> | undefined {
  const raw = (request as WithRawBody)[RAW_BODY];
  const ranges = raw === undefined ? undefined : eventRanges(raw);
  if (raw === undefined || ranges === undefined) return undefined;
  checkContentSize(ranges);
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
