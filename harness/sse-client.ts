import { sseFrames } from '@memstream/client';
import { credentialsFor } from './credentials.js';

/**
 * A Server-Sent Events reader over fetch, for tests: collects frames as `{event, data}` (data
 * parsed as JSON when it is JSON, else the raw text such as `[DONE]`), and knows when the server
 * closed the stream. Frames are split by the client's parser (@memstream/client), the one the
 * users' code reads them with.
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
  const res = await fetch(url, {
    signal: abort.signal,
    headers: { ...credentialsFor(url), accept: 'text/event-stream' },
  });
  const frames: SseFrame[] = [];
  let done = false;
  const ended = (async () => {
    if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.text().catch(() => undefined);
      return;
    }
    try {
      for await (const { event, data } of sseFrames(res, abort.signal)) {
        let parsed: unknown = data;
        try {
          parsed = JSON.parse(data);
        } catch {
          // markers such as [DONE] stay text
        }
        frames.push({ event, data: parsed });
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
