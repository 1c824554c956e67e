import { MemstreamError, errorFromAnswer } from './errors.js';
import { RetriesExhausted, withRetry, type RetryOptions } from '@memstream/retry';
import { DEFAULT_RETRY, retryAfterMs } from './retry.js';
import { fillPath, queryString, servedByGateway, type Route, type RouteInput } from './route.js';

export interface ClientOptions {
  /** Where the APIs are served: the embedded mode, the edge in front of both API processes, or the read API (with `gatewayUrl`). */
  readonly baseUrl: string;
  /**
   * The ingest gateway, for the distributed mode reached without the edge proxy: every family's
   * writes go there, the reads to `baseUrl` (the read API). Defaults to `baseUrl`.
   */
  readonly gatewayUrl?: string;
  /** A person's JWT (or an agent key, for clients that only know bearer tokens); a function is asked before every call, so a token can be refreshed. */
  readonly token?: string | (() => string | Promise<string>);
  /** An agent's key, sent as X-API-Key. */
  readonly apiKey?: string;
  /** KAOS: the agent whose memory the calls reach (X-KAOS-Agent); the server's KAOS_AGENT_NAME otherwise. */
  readonly kaosAgent?: string;
  /** How long one attempt may take until its answer has arrived (a stream: until it starts). Default 30 s. */
  readonly timeoutMs?: number;
  /** Attempts on 429 and 503 (and on lost connections where the call is safe to repeat); `false` tries once. */
  readonly retry?: Partial<Omit<RetryOptions, 'signal'>> | false;
  /** Headers sent on every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A fetch of your own (a proxy agent, a test double); the global one by default. */
  readonly fetch?: typeof fetch;
}

export interface CallOptions {
  /** Ends the call, waits between attempts included. */
  readonly signal?: AbortSignal;
  /** Replaces the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a call sends, once the family has typed it. */
export interface Call {
  readonly params?: unknown;
  readonly query?: unknown;
  readonly body?: unknown;
  /**
   * The call can be repeated without doing its work twice (a read, or a write that carries the
   * client's own id), so a connection lost before the answer is tried again too.
   */
  readonly idempotent?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The one place the client talks HTTP: credentials, the per-attempt timeout, and retries, after
 * the longer of the backoff and the server's Retry-After. A 429 or a 503 OVERLOADED is refused
 * before anything is published, so it is always tried again. A 503 that the broker did not
 * acknowledge in time (DEPENDENCY_UNAVAILABLE; memory-service's service_unavailable says either)
 * may still land, as may a call whose connection was lost or timed out: those are tried again
 * only where a repeat is harmless, a read or a write that carries the client's own id.
 */
export class Http {
  private readonly retry: RetryOptions;
  private readonly fetchFn: typeof fetch;

  constructor(readonly options: ClientOptions) {
    this.retry =
      options.retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** A call typed by its route's schemas; the answer is the caller's to type. */
  call<T, R extends Route = Route>(
    route: R,
    input: RouteInput<R>,
    options?: CallOptions,
    idempotent?: boolean,
  ): Promise<T> {
    return this.json<T>(route, { ...(input as Call), ...(idempotent === undefined ? {} : { idempotent }) }, options);
  }

  /** The parsed answer: JSON, text, or undefined for 204. */
  async json<T>(route: Route, call: Call, options: CallOptions = {}): Promise<T> {
    return this.send(route, call, options, async (response) => {
      if (response.status === 204) return undefined as T;
      return (await readBody(response)) as T;
    });
  }

  /** The answer's response with its body unread, for streams; the timeout stops at the headers. */
  async open(route: Route, call: Call, options: CallOptions = {}): Promise<Response> {
    return this.send(route, { ...call, idempotent: true }, options, async (response) => response);
  }

  private async send<T>(
    route: Route,
    call: Call,
    options: CallOptions,
    take: (response: Response) => Promise<T>,
  ): Promise<T> {
    const url = this.urlOf(route, call);
    const init = { method: route.method, headers: await this.headersOf(route, call, options), body: bodyOf(call.body) };
    const idempotent = call.idempotent ?? route.method === 'GET';
    let last: MemstreamError | undefined;
    try {
      return await withRetry(
        async () => {
          const outcome = await this.attempt(route, url, init, options, take);
          if (outcome.kind === 'done') return outcome;
          last = outcome.error;
          const { status, code } = outcome.error;
          // Refused at the door (rate limit, or the gateway's in-flight limit): nothing was written.
          const refusedUnwritten = status === 429 || (status === 503 && code === 'OVERLOADED');
          // Anything else may have reached the broker after all, so only a call whose repeat
          // cannot do the work twice is tried again.
          const unsure = status === 503 || code === 'NETWORK_ERROR' || code === 'TIMEOUT';
          const again = refusedUnwritten || (unsure && idempotent);
          if (!again) throw outcome.error;
          return { kind: 'retry', reason: outcome.error.message, afterMs: outcome.error.retryAfterMs };
        },
        { ...this.retry, ...(options.signal ? { signal: options.signal } : {}) },
      );
    } catch (err) {
      if (err instanceof RetriesExhausted && last) throw last;
      if (err instanceof MemstreamError) throw err;
      // Only the caller's signal ends a wait between attempts.
      throw new MemstreamError({
        status: 0,
        family: route.family,
        code: 'ABORTED',
        message: `${route.method} ${route.path} aborted`,
        cause: err,
      });
    }
  }

  private async attempt<T>(
    route: Route,
    url: string,
    init: RequestInit,
    options: CallOptions,
    take: (response: Response) => Promise<T>,
  ): Promise<{ kind: 'done'; value: T } | { kind: 'failed'; error: MemstreamError }> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
    try {
      const response = await this.fetchFn(url, { ...init, signal });
      if (!response.ok) {
        const body = await readBody(response);
        return {
          kind: 'failed',
          error: errorFromAnswer(
            route.family,
            response.status,
            body,
            retryAfterMs(response.headers.get('retry-after')),
          ),
        };
      }
      return { kind: 'done', value: await take(response) };
    } catch (err) {
      if (err instanceof MemstreamError) throw err;
      const code = options.signal?.aborted ? 'ABORTED' : timer.signal.aborted ? 'TIMEOUT' : 'NETWORK_ERROR';
      const error = new MemstreamError({
        status: 0,
        family: route.family,
        code,
        message: `${route.method} ${route.path}: ${describe(code, err, timeoutMs)}`,
        cause: err,
      });
      if (code === 'ABORTED') throw error;
      return { kind: 'failed', error };
    } finally {
      clearTimeout(handle);
    }
  }

  private urlOf(route: Route, call: Call): string {
    const base = servedByGateway(route) ? (this.options.gatewayUrl ?? this.options.baseUrl) : this.options.baseUrl;
    return `${base.replace(/\/+$/, '')}${fillPath(route.path, call.params as Record<string, unknown> | undefined)}${queryString(call.query as Record<string, unknown> | undefined)}`;
  }

  private async headersOf(route: Route, call: Call, options: CallOptions): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      accept: route.stream ? 'text/event-stream' : 'application/json',
      ...this.options.headers,
    };
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (route.family === 'kaos' && this.options.kaosAgent) headers['x-kaos-agent'] = this.options.kaosAgent;
    // A string body is the ARK chunk relay's newline-delimited JSON; everything else is JSON.
    if (call.body !== undefined)
      headers['content-type'] = typeof call.body === 'string' ? 'application/x-ndjson' : 'application/json';
    return { ...headers, ...options.headers };
  }
}

function bodyOf(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function describe(code: string, err: unknown, timeoutMs: number): string {
  if (code === 'TIMEOUT') return `no answer within ${timeoutMs} ms`;
  return err instanceof Error ? err.message : String(err);
}
