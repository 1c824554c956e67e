/**
 * The response resumer: an agent records the tokens of the response it is streaming for a
 * conversation; a reader replays it from the start and follows it live until it ends, so a client
 * that lost its connection (to any replica) misses nothing. One response per conversation at a
 * time; an ended one is kept for `retentionS` so late readers still get it whole.
 */
export type ResponseEvent =
  | { readonly type: 'token'; readonly text: string }
  | { readonly type: 'done' }
  | { readonly type: 'cancelled' };

export type ResponseState = 'none' | 'in_progress' | 'done' | 'cancelled';

export interface ResponseStreams {
  /** Adds tokens (and with `done`, ends the response); a new response starts when none is in progress. */
  record(conversationId: string, tokens: readonly string[], done: boolean): Promise<'recorded' | 'cancelled'>;
  /** Ends the response in progress as cancelled; false when none is in progress. */
  cancel(conversationId: string): Promise<boolean>;
  state(conversationId: string): Promise<ResponseState>;
  /** Every event of the current (or last) response from the start, then live ones, until it ends or `signal` aborts. */
  follow(conversationId: string, onEvent: (event: ResponseEvent) => void, signal: AbortSignal): Promise<void>;
  /** Forgets the conversations' responses, ended or not (their conversations were purged). */
  discard(conversationIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

const ends = (e: ResponseEvent) => e.type !== 'token';

/** In one process (the embedded mode). */
export class MemoryResponseStreams implements ResponseStreams {
  private readonly streams = new Map<
    string,
    { events: ResponseEvent[]; listeners: Set<() => void>; expiry?: NodeJS.Timeout }
  >();

  constructor(private readonly retentionS: number) {}

  async record(conversationId: string, tokens: readonly string[], done: boolean): Promise<'recorded' | 'cancelled'> {
    let stream = this.streams.get(conversationId);
    const last = stream?.events.at(-1);
    if (last?.type === 'cancelled') return 'cancelled';
    if (!stream || (last && ends(last))) {
      if (stream?.expiry) clearTimeout(stream.expiry);
      stream = { events: [], listeners: new Set() };
      this.streams.set(conversationId, stream);
    }
    stream.events.push(...tokens.map((text): ResponseEvent => ({ type: 'token', text })));
    if (done) this.end(conversationId, { type: 'done' });
    else this.wake(conversationId);
    return 'recorded';
  }

  async cancel(conversationId: string): Promise<boolean> {
    if ((await this.state(conversationId)) !== 'in_progress') return false;
    this.end(conversationId, { type: 'cancelled' });
    return true;
  }

  async state(conversationId: string): Promise<ResponseState> {
    const last = this.streams.get(conversationId)?.events.at(-1);
    if (!this.streams.has(conversationId)) return 'none';
    return last?.type === 'done' ? 'done' : last?.type === 'cancelled' ? 'cancelled' : 'in_progress';
  }

  async follow(conversationId: string, onEvent: (event: ResponseEvent) => void, signal: AbortSignal): Promise<void> {
    let sent = 0;
    while (!signal.aborted) {
      const stream = this.streams.get(conversationId);
      if (!stream) return;
      for (; sent < stream.events.length; sent++) {
        const event = stream.events[sent]!;
        onEvent(event);
        if (ends(event)) return;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          stream.listeners.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        stream.listeners.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  async discard(conversationIds: readonly string[]): Promise<void> {
    for (const id of conversationIds) {
      const stream = this.streams.get(id);
      if (!stream) continue;
      if (stream.expiry) clearTimeout(stream.expiry);
      this.streams.delete(id);
      // a follower wakes, finds no stream and ends
      for (const wake of [...stream.listeners]) wake();
    }
  }

  async close(): Promise<void> {
    for (const stream of this.streams.values()) if (stream.expiry) clearTimeout(stream.expiry);
    this.streams.clear();
  }

  private end(conversationId: string, event: ResponseEvent): void {
    const stream = this.streams.get(conversationId)!;
    stream.events.push(event);
    stream.expiry = setTimeout(
      () => this.streams.get(conversationId) === stream && this.streams.delete(conversationId),
      this.retentionS * 1000,
    );
    stream.expiry.unref();
    this.wake(conversationId);
  }

  private wake(conversationId: string): void {
    for (const wake of [...(this.streams.get(conversationId)?.listeners ?? [])]) wake();
  }
}
