import type { Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { describePrincipal } from '@memstream/auth';
import { toPublicError } from './error-handler.js';
import { defaultErrorShape } from './error-shapes/error-shape.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Server-Sent Event streams open per caller (see holdStream). */
    streamsPerCaller: CallerCounts;
  }
}

/** How many of something each key holds, up to a cap. */
export class CallerCounts {
  private readonly held = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes one for `key`; the release function gives it back (once), or undefined past the cap. */
  take(key: string): (() => void) | undefined {
    const now = this.held.get(key) ?? 0;
    if (this.max > 0 && now >= this.max) return undefined;
    this.held.set(key, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }

  count(key: string): number {
    return this.held.get(key) ?? 0;
  }
}

/**
 * Caps the connections one address holds open. A connection has no caller yet (its requests may
 * carry anyone's credentials), so the address is the only key; past the cap the connection is
 * answered 429 in the platform's default shape and closed, before its bytes are parsed.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new CallerCounts(max);
  const refusal = JSON.stringify(
    defaultErrorShape(
      toPublicError(new AppError('TOO_MANY_REQUESTS', `Too many open connections from one address (at most ${max})`)),
      { url: '/' },
    ),
  );
  server.on('connection', (socket) => {
    const release = open.take(socket.remoteAddress ?? 'unknown');
    if (release) {
      socket.once('close', release);
      return;
    }
    socket.end(
      `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(refusal)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n${refusal}`,
    );
    socket.destroySoon();
  });
}

/**
 * The caller a stream counts against: a person, or the local user by its address. An agent's key
 * is not counted: one key may front every reader of a product (ark-api relays its users' streams
 * under its own key), and keys are the operator's to hand out.
 */
function callerKeyOf(request: FastifyRequest): string | undefined {
  const principal = request.principal;
  if (principal?.kind === 'agent') return undefined;
  return principal && principal.kind !== 'local' ? describePrincipal(principal) : `address:${request.ip}`;
}

/**
 * Counts a Server-Sent Event stream against its caller until the response closes; past the
 * caller's cap, 429 in the route's family shape (so call it before the stream's first byte).
 */
export function holdStream(request: FastifyRequest, reply: FastifyReply): void {
  const caps = request.server.streamsPerCaller;
  const key = callerKeyOf(request);
  if (key === undefined) return;
  const release = caps.take(key);
  if (!release)
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many open streams for one caller (at most ${caps.max}); close one first`,
    );
  reply.raw.once('close', release);
}
