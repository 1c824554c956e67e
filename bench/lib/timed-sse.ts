import { parseSseFrame } from '@memstream/client';
import { request, type Dispatcher } from 'undici';

/**
 * One Server-Sent Events stream read for timing: every `event: message` frame whose content
 * carries a token (as `tokenOf` recognises it) is stamped with performance.now() at the moment
 * the bytes holding it were read off the socket, before any parsing, so the benchmark's own
 * JSON work is not charged to the server. Markers (`[LIVE_MODE]`, `[DONE]`, ...) are kept in order.
 */
export interface TimedStream {
  readonly url: string;
  readonly status: number;
  /** token -> when its frame arrived (the first time; a second arrival counts as a duplicate). */
  readonly arrivals: Map<string, number>;
  readonly markers: string[];
  readonly counts: { messageFrames: number; unmatched: number; duplicates: number; errors: number };
  /** Resolves when the server ends the stream or close() aborts it. */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

export async function openTimedStream(
  url: string,
  dispatcher: Dispatcher,
  tokenOf: (content: unknown) => string | undefined,
): Promise<TimedStream> {
  const abort = new AbortController();
  const res = await request(url, { dispatcher, signal: abort.signal, headers: { accept: 'text/event-stream' } });
  const arrivals = new Map<string, number>();
  const markers: string[] = [];
  const counts = { messageFrames: 0, unmatched: 0, duplicates: 0, errors: 0 };
  let done = false;

  const onFrame = (block: string, at: number) => {
    const frame = parseSseFrame(block);
    if (!frame) return;
    const { event, data: text } = frame;
    if (event === 'error') counts.errors++;
    if (!text.startsWith('{')) {
      markers.push(text);
      return;
    }
    if (event !== 'message') return;
    counts.messageFrames++;
    const chunk = JSON.parse(text) as { choices?: Array<{ delta?: { content?: unknown } }> };
    const token = tokenOf(chunk.choices?.[0]?.delta?.content);
    if (token === undefined) counts.unmatched++;
    else if (arrivals.has(token)) counts.duplicates++;
    else arrivals.set(token, at);
  };

  const ended = (async () => {
    if (res.statusCode !== 200) {
      await res.body.dump();
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const bytes of res.body) {
        const at = performance.now();
        buffer += decoder.decode(bytes as Buffer, { stream: true });
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          onFrame(buffer.slice(0, split), at);
          buffer = buffer.slice(split + 2);
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })().finally(() => (done = true));
  // A reader's failure surfaces through `ended`; nobody may be awaiting it yet.
  ended.catch(() => undefined);

  return {
    url,
    status: res.statusCode,
    arrivals,
    markers,
    counts,
    ended,
    isEnded: () => done,
    close: () => abort.abort(),
  };
}
