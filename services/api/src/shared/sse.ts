import type { ServerResponse } from 'node:http';

/**
 * One Server-Sent Events response. Writes are dropped once the client is gone; `closed` tells
 * the stream's owner to stop working for it.
 */
export class SseWriter {
  private ended = false;

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // proxies such as nginx would otherwise buffer the stream
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.on('close', () => (this.ended = true));
  }

  get closed(): boolean {
    return this.ended || this.res.destroyed;
  }

  event(name: string, data: unknown): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** One `data:` line of JSON and no event name: ARK's reference framing. */
  data(value: unknown): void {
    this.write(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** A bare `data:` line: the stream markers `[LIVE_MODE]`, `[STREAM_END]`, `[DONE]`. */
  marker(text: string): void {
    this.write(`data: ${text}\n\n`);
  }

  /** A comment line keeps idle connections open through proxies and load balancers. */
  heartbeat(): void {
    this.write(': heartbeat\n\n');
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.end();
  }

  private write(frame: string): void {
    if (!this.closed) this.res.write(frame);
  }
}
