import { request as httpRequest, type ClientRequest } from 'node:http';
import { summarizeLatencies, type LatencySummary } from './stats.js';

/**
 * ARK's controller relay, chunk to reader: `readers` readers open `GET /stream/{query}` the way
 * ark-api does (from-beginning, wait-for-query) before the query exists; one chunked POST is then
 * held open, as ARK's controller holds it; its first chunk starts the query, and once every reader
 * has it (all are live) a chunk is written every `intervalMs`; each
 * reader's arrival time of each chunk, minus the time it was written, is a sample. The relay ends
 * the controller's way: the pipe closed and the completion posted at once; every reader must then
 * get every chunk and `[DONE]`.
 */
export interface RelayDeliveryOptions {
  readonly writeOrigin: string;
  readonly streamOrigin: string;
  readonly query: string;
  readonly readers: number;
  readonly chunks: number;
  readonly intervalMs: number;
  readonly frameTimeoutMs: number;
  readonly progress: (msg: string) => void;
}

export interface RelayDeliveryFigures {
  readonly readers: number;
  readonly chunks: number;
  readonly interval_ms: number;
  /** From writing a chunk on the open POST to its `data:` line at a reader, over every (reader, chunk). */
  readonly delivery_ms: LatencySummary;
  readonly frames_expected: number;
  readonly frames_received: number;
  readonly readers_done: number;
  readonly relay_status: number;
  readonly complete_status: number;
  readonly complete_ms: number;
}

interface Reader {
  readonly arrivals: Map<number, number>;
  readonly done: Promise<boolean>;
  close(): void;
}

async function openReader(origin: string, query: string, onFrame: () => void): Promise<Reader> {
  const abort = new AbortController();
  const res = await fetch(`${origin}/stream/${encodeURIComponent(query)}?from-beginning=true&wait-for-query=60`, {
    signal: abort.signal,
  });
  const arrivals = new Map<number, number>();
  const done = (async () => {
    const lines = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let pending = '';
    for (;;) {
      const { done: ended, value } = await lines.read();
      if (ended) return false;
      pending += value;
      let end: number;
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (!line.startsWith('data: ')) continue;
        if (line === 'data: [DONE]') return true;
        const n = (JSON.parse(line.slice(6)) as { bench_n?: number }).bench_n;
        if (typeof n === 'number' && !arrivals.has(n)) arrivals.set(n, performance.now());
        onFrame();
      }
    }
  })().catch(() => false);
  return { arrivals, done, close: () => abort.abort() };
}

function openRelay(origin: string, query: string): { req: ClientRequest; status: Promise<number> } {
  const { hostname, port } = new URL(origin);
  let req!: ClientRequest;
  const status = new Promise<number>((resolve) => {
    req = httpRequest(
      {
        hostname,
        port,
        method: 'POST',
        path: `/stream/${encodeURIComponent(query)}`,
        headers: { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
  });
  req.flushHeaders();
  return { req, status };
}

const chunk = (query: string, n: number) =>
  `${JSON.stringify({
    id: `chatcmpl-${query}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'bench',
    choices: [{ index: 0, delta: { content: `token ${n} ` }, finish_reason: null }],
    bench_n: n,
  })}\n`;

export async function measureRelayDelivery(o: RelayDeliveryOptions): Promise<RelayDeliveryFigures> {
  let frames = 0;
  const readers = await Promise.all(
    Array.from({ length: o.readers }, () => openReader(o.streamOrigin, o.query, () => frames++)),
  );
  const relay = openRelay(o.writeOrigin, o.query);
  // A first chunk makes the query exist; once every reader has it, all of them are live and the
  // timed chunks measure the relay, not the readers' wait for the query to start.
  relay.req.write(chunk(o.query, -1));
  const barrierDeadline = performance.now() + o.frameTimeoutMs;
  while (readers.some((r) => !r.arrivals.has(-1)) && performance.now() < barrierDeadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const written: number[] = [];
  const started = performance.now();
  for (let n = 0; n < o.chunks; n++) {
    // Open loop, as a model's tokens come: chunk n is due at start + n * interval.
    const due = started + n * o.intervalMs - performance.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
    written.push(performance.now());
    relay.req.write(chunk(o.query, n));
  }
  relay.req.end();
  const completeStarted = performance.now();
  const complete = await fetch(`${o.writeOrigin}/stream/${encodeURIComponent(o.query)}/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await complete.text();
  const completeMs = performance.now() - completeStarted;
  const relayStatus = await relay.status;
  const deadline = new Promise<false>((resolve) => setTimeout(() => resolve(false), o.frameTimeoutMs).unref());
  const finished = await Promise.all(readers.map((r) => Promise.race([r.done, deadline])));
  for (const r of readers) r.close();
  o.progress(`relay: ${frames} frames read, ${finished.filter(Boolean).length} of ${o.readers} readers got [DONE]`);
  const samples: number[] = [];
  for (const r of readers) for (const [n, at] of r.arrivals) if (n >= 0) samples.push(at - written[n]!);
  return {
    readers: o.readers,
    chunks: o.chunks,
    interval_ms: o.intervalMs,
    delivery_ms: summarizeLatencies(Float64Array.from(samples)),
    frames_expected: o.readers * o.chunks,
    frames_received: samples.length,
    readers_done: finished.filter(Boolean).length,
    relay_status: relayStatus,
    complete_status: complete.status,
    complete_ms: Math.round(completeMs),
  };
}
