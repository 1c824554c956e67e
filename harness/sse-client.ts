import { credentialsFor } from './credentials.js';
/**
 * A Server-Sent Events reader over fetch, for tests: collects frames as `{event, data}` (data
 * parsed as JSON when it is JSON, else the raw text such as `[DONE]`), and knows when the server
 * closed the stream.
 */
export interface SseFrame {
  readonly event: string;
  readonly data: unknown;
}

export interface SseReader {
  readonly status: number;
  readonly frames: SseFrame[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  readonly isEnded: () => boolean;
  close(): void;
}

export async function openSse(url: string): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers: { ...credentialsFor(url), accept: 'text/event-stream' } });
  const frames: SseFrame[] = [];
  let done = false;
  const ended = (async () => {
    if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.text().catch(() => undefined);
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const frame = parseSseBlock(block);
          if (!frame) continue;
          const { event, text } = frame;
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // markers such as [DONE] stay text
          }
          frames.push({ event, data: parsed });
        }
      }
    } catch {
      // aborted by close()
    }
  })().finally(() => (done = true));
  return { status: res.status, frames, ended, isEnded: () => done, close: () => abort.abort() };
}

/** The text content of every `event: message` frame, in order. */
export function contents(reader: SseReader): unknown[] {
  return reader.frames
    .filter((f) => f.event === 'message' && typeof f.data === 'object')
    .map((f) => (f.data as { choices: Array<{ delta: { content?: unknown } }> }).choices[0]!.delta.content);
}

export function markers(reader: SseReader): string[] {
  return reader.frames.filter((f) => typeof f.data === 'string').map((f) => f.data as string);
}

/** One SSE block (the lines between blank lines) as its event name and joined data; undefined for comments only. */
export function parseSseBlock(block: string): { event: string; text: string } | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // heartbeat comment
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  return data.length === 0 ? undefined : { event, text: data.join('\n') };
}
