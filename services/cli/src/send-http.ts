import type { Conversation } from './group-chat-file.js';
import { runInLanes } from './lanes.js';
import { DEFAULT_RETRY, RetriesExhausted, retryAfterMs, withRetry, type Attempt, type RetryOptions } from './retry.js';
import { messageLocation, type MessageOutcome, type Tally } from './tally.js';

export interface HttpTarget {
  /** Base URL of a memstream gateway (or any EverMemOS-compatible memories API). */
  readonly apiUrl: string;
  /** Conversations sent at once; the messages of one conversation always go one after another. */
  readonly concurrency: number;
  readonly requestTimeoutMs?: number;
  readonly retry?: RetryOptions;
  readonly signal?: AbortSignal;
}

type Reply = { readonly ok: true; readonly status: number; readonly body: Record<string, unknown> } | { readonly ok: false; readonly reason: string };

/**
 * Sends each conversation's metadata, then its messages in file order, one request at a time per
 * conversation: the server numbers a group's messages in the order they arrive. Messages the
 * server rejects (4xx) are reported and skipped; a message that still fails after every retry
 * means the server is unreachable or overloaded, so the whole import stops there rather than
 * hammering it, and every message not sent is counted as failed.
 */
export async function sendOverHttp(conversations: readonly Conversation[], target: HttpTarget, tally: Tally): Promise<void> {
  const stop = new AbortController();
  const signal = target.signal ? AbortSignal.any([target.signal, stop.signal]) : stop.signal;
  const post = poster(target, signal);
  const base = target.apiUrl.replace(/\/+$/, '');

  await runInLanes(conversations, (c) => c.meta.group_id, target.concurrency, async (conversation) => {
    const total = conversation.messages.length;
    let done = 0;
    try {
      signal.throwIfAborted();
      const meta = await post(`${base}/api/v1/memories/conversation-meta`, conversation.meta);
      if (!meta.ok) {
        tally.failed(`conversation ${conversation.index}`, `conversation_meta rejected (${meta.reason}); its ${total} messages not sent`, total);
        return;
      }
      for (; done < total; done++) {
        signal.throwIfAborted();
        const reply = await post(`${base}/api/v1/memories`, conversation.messages[done]);
        if (reply.ok) tally.succeeded(outcomeOf(reply));
        else tally.failed(messageLocation(conversation, done), reply.reason);
      }
    } catch (err) {
      if (!signal.aborted && !(err instanceof RetriesExhausted)) throw err;
      if (!signal.aborted) stop.abort(new Error(`server unavailable (${(err as Error).message})`));
      const left = total - done;
      if (left > 0) tally.failed(`conversation ${conversation.index}`, `${left} messages not sent: ${stopReason(signal)}`, left);
    }
  });
}

/** 200 says whether the message was new; 202 means the server took it but had not stored it yet. */
function outcomeOf(reply: Extract<Reply, { ok: true }>): MessageOutcome {
  if (reply.status === 202) return 'accepted';
  const result = reply.body['result'];
  const duplicate = typeof result === 'object' && result !== null && (result as Record<string, unknown>)['duplicate'] === true;
  return duplicate ? 'duplicate' : 'stored';
}

/** One POST with retries: network errors, 429 and 5xx are tried again, other 4xx are final. */
function poster(target: HttpTarget, signal: AbortSignal) {
  const timeoutMs = target.requestTimeoutMs ?? 30_000;
  const retry = { ...(target.retry ?? DEFAULT_RETRY), signal };
  return (url: string, body: unknown): Promise<Reply> =>
    withRetry(async (): Promise<Attempt<Reply>> => {
      let res: Response;
      try {
        // keep-alive is undici's default, so every lane reuses its connection.
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (err) {
        if (signal.aborted) throw err;
        return { kind: 'retry', reason: networkReason(err) };
      }
      const text = await res.text().catch(() => '');
      const json = parseObject(text);
      if (res.ok) return { kind: 'done', value: { ok: true, status: res.status, body: json } };
      const reason = `HTTP ${res.status}${typeof json['code'] === 'string' ? ` ${json['code']}` : ''}: ${typeof json['message'] === 'string' ? json['message'] : text.slice(0, 300)}`;
      if (res.status === 429 || res.status >= 500) return { kind: 'retry', reason, afterMs: retryAfterMs(res.headers.get('retry-after')) };
      return { kind: 'done', value: { ok: false, reason } };
    }, retry);
}

function networkReason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'request timed out';
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return `network error: ${cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))}`;
}

function stopReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? `import stopped, ${signal.reason.message}` : 'import stopped';
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
