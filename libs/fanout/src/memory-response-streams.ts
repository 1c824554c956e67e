import { getHeapStatistics } from 'node:v8';
import {
  bytesOf,
  inProgressLimitOf,
  TOKEN_COST,
  type RecordResult,
  type ResponseEvent,
  type ResponseLimits,
  type ResponseRecorder,
  type ResponseState,
  type ResponseStreams,
} from './response-streams.js';

const ends = (e: ResponseEvent) => e.type !== 'token';
/** The default budget is this fraction of the heap limit: the rest of the process (every family, the pipeline) keeps the most. */
const HEAP_SHARE = 8;

interface Held {
  readonly events: ResponseEvent[];
  readonly listeners: Set<() => void>;
  /** The recorder whose responses in progress this one counts against, while in progress. */
  readonly recorder: string;
  bytes: number;
  /** What it costs this process: its text plus TOKEN_COST per token (see memoryBudgetBytes). */
  cost: number;
  /** Its forgetting: after `idleS` of silence in progress, after `retentionS` once ended. */
  timer?: NodeJS.Timeout;
}

/** In one process (the embedded mode). */
export class MemoryResponseStreams implements ResponseStreams {
  private readonly streams = new Map<string, Held>();
  /** Each recorder's responses in progress, by conversation. */
  private readonly inProgress = new Map<string, Set<string>>();
  private cost = 0;

  private readonly limits: ResponseLimits;

  constructor(
    private readonly retentionS: number,
    limits: ResponseLimits,
  ) {
    // 0: a share of the heap this process was given, so a smaller heap holds proportionally less
    const budget = limits.memoryBudgetBytes || Math.floor(getHeapStatistics().heap_size_limit / HEAP_SHARE);
    this.limits = { ...limits, memoryBudgetBytes: budget };
  }

  async record(
    conversationId: string,
    tokens: readonly string[],
    done: boolean,
    recorder: ResponseRecorder,
  ): Promise<RecordResult> {
    const current = this.streams.get(conversationId);
    const last = current?.events.at(-1);
    if (last?.type === 'cancelled') return 'cancelled';
    const fresh = !current || (last !== undefined && ends(last));
    const bytes = bytesOf(tokens);
    const cost = bytes + TOKEN_COST * tokens.length;
    const held = fresh ? { bytes: 0, tokens: 0 } : { bytes: current.bytes, tokens: current.events.length };
    const most = inProgressLimitOf(this.limits, recorder);
    if (fresh && (this.inProgress.get(recorder.key)?.size ?? 0) >= most) return { refused: 'in_progress', limit: most };
    if (held.bytes + bytes > this.limits.maxBytes) return { refused: 'bytes', limit: this.limits.maxBytes };
    if (held.tokens + tokens.length > this.limits.maxTokens) return { refused: 'tokens', limit: this.limits.maxTokens };
    // An ended response being replaced gives its cost back first.
    const freed = fresh && current ? current.cost : 0;
    if (this.cost - freed + cost > this.limits.memoryBudgetBytes)
      return { refused: 'busy', limit: this.limits.memoryBudgetBytes };

    let stream = current;
    if (!stream || fresh) {
      if (stream) this.forget(conversationId, stream);
      stream = { events: [], listeners: new Set(), recorder: recorder.key, bytes: 0, cost: 0 };
      this.streams.set(conversationId, stream);
      this.inProgressOf(recorder.key).add(conversationId);
    }
    for (const text of tokens) stream.events.push({ type: 'token', text });
    stream.bytes += bytes;
    stream.cost += cost;
    this.cost += cost;
    if (done) this.end(conversationId, stream, { type: 'done' });
    else {
      this.expireAfter(conversationId, stream, this.limits.idleS);
      this.wake(stream);
    }
    return 'recorded';
  }

  async cancel(conversationId: string): Promise<boolean> {
    const stream = this.streams.get(conversationId);
    if (!stream || (await this.state(conversationId)) !== 'in_progress') return false;
    this.end(conversationId, stream, { type: 'cancelled' });
    return true;
  }

  async state(conversationId: string): Promise<ResponseState> {
    const stream = this.streams.get(conversationId);
    if (!stream) return 'none';
    const last = stream.events.at(-1);
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
      if (stream) this.forget(id, stream);
    }
  }

  async close(): Promise<void> {
    for (const [id, stream] of [...this.streams]) this.forget(id, stream);
  }

  /** What every held response costs now (see memoryBudgetBytes). */
  heldCost(): number {
    return this.cost;
  }

  private end(conversationId: string, stream: Held, event: ResponseEvent): void {
    stream.events.push(event);
    this.inProgress.get(stream.recorder)?.delete(conversationId);
    this.expireAfter(conversationId, stream, this.retentionS);
    this.wake(stream);
  }

  private expireAfter(conversationId: string, stream: Held, seconds: number): void {
    if (stream.timer) clearTimeout(stream.timer);
    stream.timer = setTimeout(
      () => this.streams.get(conversationId) === stream && this.forget(conversationId, stream),
      seconds * 1000,
    );
    stream.timer.unref();
  }

  /** Drops a response, ended or not, and gives back what it held; its followers wake, find none and end. */
  private forget(conversationId: string, stream: Held): void {
    if (stream.timer) clearTimeout(stream.timer);
    this.streams.delete(conversationId);
    const mine = this.inProgress.get(stream.recorder);
    mine?.delete(conversationId);
    if (mine?.size === 0) this.inProgress.delete(stream.recorder);
    this.cost -= stream.cost;
    this.wake(stream);
  }

  private inProgressOf(key: string): Set<string> {
    let set = this.inProgress.get(key);
    if (!set) this.inProgress.set(key, (set = new Set()));
    return set;
  }

  private wake(stream: Held): void {
    for (const wake of [...stream.listeners]) wake();
  }
}
