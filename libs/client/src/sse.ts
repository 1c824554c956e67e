/** One Server-Sent Events frame: its event name (`message` when unnamed) and its data lines joined. */
export interface SseFrame {
  readonly event: string;
  readonly data: string;
}

/**
 * The frames of an event stream as they arrive, comments (heartbeats) skipped. Breaking out of
 * the loop, or the signal, cancels the body, which closes the connection, so the server
 * unsubscribes the reader at once.
 */
export async function* sseFrames(response: Response, signal?: AbortSignal): AsyncGenerator<SseFrame> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = parseSseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame) yield frame;
      }
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
  }
}

/** One block of an event stream (the lines between blank lines) as a frame; undefined for comments only. */
export function parseSseFrame(block: string): SseFrame | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') };
}
