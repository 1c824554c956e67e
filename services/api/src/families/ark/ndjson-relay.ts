import type { Readable } from 'node:stream';
import { AppError } from '@memstream/errors';
import { jsonValueError } from '@memstream/http';

/** A line longer than this is not a token chunk; the relay stops there rather than buffer it. */
export const MAX_LINE_BYTES = 1_000_000;
/** Chunks that wait while a write is out go together in the next event, up to this many. */
const MAX_CHUNKS_PER_EVENT = 200;
/**
 * Writes out at once: the next waits for the oldest's outcome, and lines queue meanwhile, so
 * bursts batch. Wide enough that a chunk waits only for the pipeline, not behind its window.
 */
const MAX_WRITES_OUT = 64;

type Chunk = Record<string, unknown>;

/**
 * Relays a newline-delimited body as it arrives. ARK's controller holds one chunked POST open for
 * the whole query, so the body is read line by line, not whole: each complete line is checked and
 * handed to `write` (one event per line, or per the lines that queued while earlier writes were
 * out). `write` publishes before it returns its promise, so the order of its calls is the order on
 * the topic. The first refusal (a bad line, a write refused) ends the relay; what was relayed
 * before it stays relayed.
 */
export async function relayLines(
  body: Readable,
  write: (chunks: Chunk[]) => Promise<unknown>,
): Promise<{ chunks: number }> {
  const out: Promise<unknown>[] = [];
  let queued: Chunk[] = [];
  let relayed = 0;
  let lineNo = 0;
  let pending = '';
  let pendingBytes = 0;

  // The first refusal of a write (the caller may not write here): the relay ends with it.
  let refusal: unknown;
  const settleOldest = async () => {
    try {
      await out.shift();
    } catch (err) {
      refusal ??= err;
    }
  };
  const flush = async () => {
    while (queued.length > 0 && refusal === undefined) {
      while (out.length >= MAX_WRITES_OUT) await settleOldest();
      const batch = queued.slice(0, MAX_CHUNKS_PER_EVENT);
      queued = queued.slice(batch.length);
      relayed += batch.length;
      const sent = write(batch);
      // A refusal surfaces when this write is awaited; until then it must not go unhandled.
      sent.catch(() => undefined);
      out.push(sent);
    }
  };
  // A bad line ends the relay; the lines before it are relayed, as ARK's service relays them.
  let badLine: AppError | undefined;
  const take = (line: string) => {
    lineNo++;
    if (line.trim() === '') return;
    try {
      queued.push(...parseLine(line, lineNo));
    } catch (err) {
      badLine = err as AppError;
    }
  };

  body.setEncoding('utf8');
  // Not destroyed when left early: a refusal is answered while the rest of the body drains.
  try {
    for await (const piece of body.iterator({ destroyOnReturn: false }) as AsyncIterable<string>) {
      let start = 0;
      for (let end = piece.indexOf('\n'); end >= 0 && !badLine; end = piece.indexOf('\n', start)) {
        take(pending + piece.slice(start, end));
        pending = '';
        pendingBytes = 0;
        start = end + 1;
      }
      pending += piece.slice(start);
      pendingBytes += Buffer.byteLength(piece) - Buffer.byteLength(piece.slice(0, start));
      if (!badLine && pendingBytes > MAX_LINE_BYTES)
        badLine = new AppError('PAYLOAD_TOO_LARGE', `line ${lineNo + 1} is longer than ${MAX_LINE_BYTES} bytes`);
      if (badLine) break;
      await flush();
      if (refusal !== undefined) break;
    }
  } catch {
    // The writer went away mid-body (the controller's pod stopped): what arrived whole is relayed.
    pending = '';
  }
  if (!badLine && refusal === undefined) take(pending);
  else body.resume();
  await flush();
  while (out.length > 0) await settleOldest();
  if (refusal !== undefined) throw refusal;
  if (badLine)
    throw relayed === 0
      ? badLine
      : new AppError(badLine.code, `${badLine.message}; the ${relayed} chunks before it were relayed`);
  if (relayed === 0) throw new AppError('INVALID_PARAMETER', 'no chunks in body');
  return { chunks: relayed };
}

/** A line's chunks: one chunk object, or a non-empty array of them (the body's JSON form, on one line). */
function parseLine(line: string, n: number): Chunk[] {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new AppError('INVALID_PARAMETER', `line ${n} is not JSON`);
  }
  const isChunk = (v: unknown): v is Chunk => v !== null && typeof v === 'object' && !Array.isArray(v);
  const chunks = Array.isArray(value) && value.length > 0 ? value : [value];
  if (!chunks.every(isChunk))
    throw new AppError('INVALID_PARAMETER', `line ${n} is not a JSON object or a non-empty array of them`);
  // JSON.parse keeps what the JSON parser of every other body refuses: a `__proto__` key (the
  // event's schema would drop it, relaying {} for {"__proto__": ...}) and 1e400 (Infinity, relayed
  // as null). ARK's service says nothing of either: refused, so a chunk is relayed as sent or not at all.
  const refused = jsonValueError(value, { what: 'the line', at: `line ${n}` });
  if (refused) throw refused;
  return chunks;
}

/**
 * The relays open on this process, by stream. A completion waits for the relays of its stream
 * to have handed every line to the topic, so it is published, and applied, after them: ARK's
 * controller posts the completion as soon as it closes its relay, without waiting for its answer.
 */
export class OpenRelays {
  private readonly open = new Map<string, Set<Promise<unknown>>>();
  /** Streams a relay of this process wrote to: they exist once the converter applied those writes. */
  private readonly written = new Set<string>();

  track<T>(stream: string, relay: Promise<T>): Promise<T> {
    const set = this.open.get(stream) ?? new Set();
    this.open.set(stream, set);
    set.add(relay);
    const done = relay.finally(() => {
      set.delete(relay);
      if (set.size === 0) this.open.delete(stream);
    });
    done.catch(() => undefined);
    return relay;
  }

  markWritten(stream: string): void {
    // Bounded: it only spares a completion the existence check, which the converter makes again.
    if (this.written.size > 10_000) this.written.clear();
    this.written.add(stream);
  }

  /** Waits for the open relays of `stream`; true when a relay of this process wrote to it. */
  async settle(stream: string): Promise<boolean> {
    const relays = [...(this.open.get(stream) ?? [])];
    await Promise.allSettled(relays);
    return this.written.has(stream);
  }
}
