import type { Conversation } from './group-chat-file.js';
import { runInLanes } from './lanes.js';
import {
  DEFAULT_RETRY,
  RetriesExhausted,
  retryAfterMs,
  withRetry,
  type Attempt,
  type RetryOptions,
} from '@memstream/client';
import { messageLocation, type MessageOutcome, type Tally } from './tally.js';

/** Who the import calls as: an agent's API key or a person's token (a JWT). */
export type Credential = { readonly kind: 'api-key' | 'token'; readonly value: string };

export interface HttpTarget {
  /** Base URL of a memstream gateway (or any EverMemOS-compatible memories API). */
  readonly apiUrl: string;
  /** None for a server without authentication (one serving only this machine). */
  readonly credential?: Credential | undefined;
  /** Conversations sent at once; the messages of one conversation always go one after another. */
  readonly concurrency: number;
  readonly requestTimeoutMs?: number;
  readonly retry?: RetryOptions;
  readonly signal?: AbortSignal;
}

type Reply =
  | { readonly ok: true; readonly status: number; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly status: number; readonly reason: string };

/** Why an import stopped before its end: the server refused who is calling (401) or what they may do (403). */
export class AccessRefused extends Error {
  override readonly name = 'AccessRefused';
  constructor(
    readonly status: 401 | 403,
    readonly reason: string,
  ) {
    super(`the server refused access (${reason})`);
  }
}

/** How an import over HTTP ended early, if it did because of its credentials. */
export interface HttpOutcome {
  readonly refused?: AccessRefused | undefined;
}

/**
 * Sends each conversation's metadata, then its messages in file order, one request at a time per
 * conversation: the server numbers a group's messages in the order they arrive. Messages the
 * server rejects (4xx) are reported and skipped; a message that still fails after every retry
 * means the server is unreachable or overloaded, so the whole import stops there rather than
 * hammering it, and every message not sent is counted as failed. A 401 or 403 stops it too, at
 * once: the same credentials would be refused for every message after it.
 */
export async function sendOverHttp(
  conversations: readonly Conversation[],
  target: HttpTarget,
  tally: Tally,
): Promise<HttpOutcome> {
  const stop = new AbortController();
  const signal = target.signal ? AbortSignal.any([target.signal, stop.signal]) : stop.signal;
  const post = poster(target, signal);
  const base = target.apiUrl.replace(/\/+$/, '');

  await runInLanes(
    conversations,
    (c) => c.meta.group_id,
    target.concurrency,
    async (conversation) => {
      const total = conversation.messages.length;
      let done = 0;
      try {
        signal.throwIfAborted();
        const meta = await post(`${base}/api/v1/memories/conversation-meta`, conversation.meta);
        if (!meta.ok) {
          throwIfRefused(meta);
          tally.failed(
            `conversation ${conversation.index}`,
            `conversation_meta rejected (${meta.reason}); its ${total} messages not sent`,
            total,
          );
          return;
        }
        for (; done < total; done++) {
          signal.throwIfAborted();
          const reply = await post(`${base}/api/v1/memories`, conversation.messages[done]);
          if (reply.ok) tally.succeeded(outcomeOf(reply));
          else {
            throwIfRefused(reply);
            tally.failed(messageLocation(conversation, done), reply.reason);
          }
        }
      } catch (err) {
        if (!signal.aborted && !(err instanceof RetriesExhausted) && !(err instanceof AccessRefused)) throw err;
        if (!signal.aborted)
          stop.abort(err instanceof AccessRefused ? err : new Error(`server unavailable (${(err as Error).message})`));
        const left = total - done;
        if (left > 0)
          tally.failed(`conversation ${conversation.index}`, `${left} messages not sent: ${stopReason(signal)}`, left);
      }
    },
  );
  return { refused: stop.signal.reason instanceof AccessRefused ? stop.signal.reason : undefined };
}

function throwIfRefused(reply: Extract<Reply, { ok: false }>): void {
  if (reply.status === 401 || reply.status === 403) throw new AccessRefused(reply.status, reply.reason);
}

/** The header the server reads each kind of credential from (libs/auth). */
function credentialHeaders(credential: Credential | undefined): Record<string, string> {
  if (credential === undefined) return {};
  return credential.kind === 'api-key'
    ? { 'x-api-key': credential.value }
    : { authorization: `Bearer ${credential.value}` };
}

/** 200 says whether the message was new; 202 means the server took it but had not stored it yet. */
function outcomeOf(reply: Extract<Reply, { ok: true }>): MessageOutcome {
  if (reply.status === 202) return 'accepted';
  const result = reply.body['result'];
  const duplicate =
    typeof result === 'object' && result !== null && (result as Record<string, unknown>)['duplicate'] === true;
  return duplicate ? 'duplicate' : 'stored';
}

/** One POST with retries: network errors, 429 and 5xx are tried again, other 4xx are final. */
function poster(target: HttpTarget, signal: AbortSignal) {
  const timeoutMs = target.requestTimeoutMs ?? 30_000;
  const retry = { ...(target.retry ?? DEFAULT_RETRY), signal };
  const headers = { 'content-type': 'application/json', ...credentialHeaders(target.credential) };
  return (url: string, body: unknown): Promise<Reply> =>
    withRetry(async (): Promise<Attempt<Reply>> => {
      let res: Response;
      try {
        // keep-alive is undici's default, so every lane reuses its connection.
        res = await fetch(url, {
          method: 'POST',
          headers,
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
      if (res.status === 429 || res.status >= 500)
        return { kind: 'retry', reason, afterMs: retryAfterMs(res.headers.get('retry-after')) };
      return { kind: 'done', value: { ok: false, status: res.status, reason } };
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
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
