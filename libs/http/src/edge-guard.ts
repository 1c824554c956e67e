import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a long-lived body (ARK's relay): no total deadline, this idle timeout instead. */
    longLivedBody?: boolean;
  }
}

/** What the edge lets in, and how long a body may take (see httpEdgeSettings). */
export interface EdgeGuardOptions {
  /** Host names (or host:port) answered besides loopback ones. */
  readonly publicHosts: readonly string[];
  /** Refuse any other Host: always without authentication, with it only when publicHosts is set. */
  readonly enforceHost: boolean;
  readonly bodyIdleTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly streamBodyIdleTimeoutMs: number;
}

/** Probes and scrapers name a pod by its address; they serve no caller's data. */
const HOSTLESS_PREFIXES = ['/health', '/metrics'];
/** Methods that carry a write; DELETE without a body is never a CORS simple request. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The checks that keep a browser on the same machine (every site it visits is a loopback client)
 * from using the server: a foreign `Host` (DNS rebinding) and a foreign `Origin` (a cross-site
 * page) are refused, and a write must name its media type, so it is never a CORS simple request;
 * no preflight is ever granted (no route answers OPTIONS with Access-Control headers). Then the
 * body's clock: idle and total deadlines, and a connection whose body was not read is closed
 * after the answer instead of being drained at the sender's pace. Registered before credentials
 * are checked, so an unauthenticated caller meets them too.
 */
export function guardEdge(app: FastifyInstance, options: EdgeGuardOptions): void {
  const hosts = new Set(options.publicHosts.map((h) => h.toLowerCase()));
  // fastify leaves Node's headersTimeout at 0 (its requestTimeout is 0): a socket that never
  // finished its headers, or sent nothing, was kept for ever. The idle timer closes a silent one
  // at once; Node's own check (every 30 s) bounds headers that trickle.
  app.server.headersTimeout = options.bodyTimeoutMs;
  app.server.on('connection', (socket: Socket) => socket.setTimeout(options.bodyIdleTimeoutMs));
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    startBodyClock(request, options);
    const host = request.headers.host?.toLowerCase();
    if (options.enforceHost && !hostless(request) && !allowedHost(host, hosts))
      throw new AppError('FORBIDDEN', 'This server does not answer to that Host');
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host, hosts))
      throw new AppError('FORBIDDEN', 'Requests from another origin are refused');
    if (BODY_METHODS.has(request.method) && request.routeOptions.schema?.body !== undefined) {
      if (request.headers['content-type'] === undefined)
        throw new AppError('INVALID_PARAMETER', "Name the body's media type: Content-Type: application/json");
    }
  });
  app.addHook('onSend', async (request, reply) => {
    // Node would otherwise read and discard the rest of the body at whatever pace it comes.
    if (request.raw.complete) return;
    void reply.header('connection', 'close');
    lingerOnClose(request);
  });
}

/** How long, and how many body bytes, a connection closed under an unread body keeps reading. */
const LINGER = { ms: 2000, bytes: 16 * 1024 * 1024 } as const;

/**
 * A lingering close, as web servers do it: after the answer, the write side is shut (the peer
 * reads the answer, then the end), and what still comes of the body is read and discarded until
 * the body ends, the peer closes, or LINGER's time or bytes run out; only then is the socket
 * destroyed. Node's own close destroys the socket right after the answer, and a socket closed
 * with unread bytes, or sent more, answers with a reset: a proxy still streaming the body (nginx
 * with proxy_request_buffering off) fails its write with EPIPE and can answer 502 instead of the
 * answer it was sent, and a client's kernel may drop the answer it had not read yet.
 * Node's server ends a connection it answered with `Connection: close` through the socket's
 * `destroySoon`, so this socket's own is replaced.
 */
function lingerOnClose(request: FastifyRequest): void {
  const raw = request.raw;
  const socket = raw.socket;
  if (typeof socket?.destroySoon !== 'function') return; // an injected request (tests) has no socket
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.destroyed) return;
    let read = 0;
    let closing = false;
    // The answer still goes out whole; the rest of the wait is the body's clock (startBodyClock).
    const close = () => {
      if (closing) return;
      closing = true;
      clearTimeout(timer);
      raw.off('data', count);
      if (this.writableFinished) this.destroy();
      else this.once('finish', () => this.destroy());
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER.bytes) close();
    };
    const timer = setTimeout(close, LINGER.ms).unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', close); // the peer is done sending
    if (this.writable) this.end();
    // the whole body came (or comes later): nothing unread is left
    if (raw.complete) return close();
    raw.once('end', close);
    // Node has set the request flowing to dump its body: these are the bytes discarded.
    raw.on('data', count);
    raw.resume();
  };
}

function hostless(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && HOSTLESS_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));
}

/** The name part of a Host value: `[::1]:8080` is `::1`, `Example.org:80` is `example.org`. */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

function allowedHost(host: string | undefined, hosts: ReadonlySet<string>): boolean {
  if (host === undefined || host === '') return false;
  const name = hostnameOf(host);
  return isLoopbackName(name) || hosts.has(name) || hosts.has(host);
}

/** The page's origin is the server's own: the host it was loaded from is the one it calls. */
function sameOrigin(origin: string, host: string | undefined, hosts: ReadonlySet<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null`: a sandboxed frame, a file, a redirect across sites
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const originHost = url.host.toLowerCase();
  return (
    (host !== undefined && stripDefaultPort(host) === originHost) || hosts.has(url.hostname) || hosts.has(originHost)
  );
}

function stripDefaultPort(host: string): string {
  return host.replace(/:(80|443)$/, '');
}

/**
 * A body that goes silent, or trickles past its total deadline, has its socket destroyed: Node's
 * own requestTimeout is one value for every route (it would cut ARK's relay) and is checked only
 * every 30 s. The socket's idle timer is Node's, reset by every byte read.
 */
function startBodyClock(request: FastifyRequest, options: EdgeGuardOptions): void {
  const raw = request.raw;
  const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
  const socket = raw.socket;
  if (typeof socket?.setTimeout !== 'function') return; // an injected request (tests) has no socket
  if (!hasBody || raw.complete) {
    socket.setTimeout(0); // the request is whole: the handler may take its time (a held write, a stream)
    return;
  }
  const longLived = request.routeOptions.config?.longLivedBody === true;
  socket.setTimeout(longLived ? options.streamBodyIdleTimeoutMs : options.bodyIdleTimeoutMs);
  const deadline = longLived ? undefined : setTimeout(() => socket.destroy(), options.bodyTimeoutMs);
  const stop = () => {
    if (deadline) clearTimeout(deadline);
    // back to no idle limit while the handler works; Node sets keep-alive's own after the answer
    if (!socket.destroyed) socket.setTimeout(0);
  };
  raw.once('end', stop);
  raw.once('close', () => deadline && clearTimeout(deadline));
}
