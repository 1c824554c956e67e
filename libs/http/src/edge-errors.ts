import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { errorHandlerFor, toPublicError } from './error-handler.js';
import { defaultErrorShape, type ErrorShape, type PublicError } from './error-shapes/error-shape.js';
import type { ApiFamily } from './openapi/api-family.js';

/** The error shape of whatever family owns a path: the longest of their prefixes that matches. */
export type ShapeForPath = (url: string) => ErrorShape;

/**
 * Errors that happen before any family's route is chosen (no route matches, the URL cannot be
 * decoded, the request line or headers are too long) would get fastify's or Node's own bodies.
 * A client of one family parses one shape, so these too answer in the shape of the family the
 * path belongs to (`/api/v1/...` EverMemOS, `/v1/...` memory-service, `/memory/...` KAOS, ARK's
 * `/messages`, `/sessions`, `/session/...` and `/stream/...`), and in the platform's default
 * shape elsewhere.
 */
export function shapeByPath(families: readonly ApiFamily[], unclaimed: ErrorShape = defaultErrorShape): ShapeForPath {
  const prefixes = families
    .flatMap((family) => family.paths.map((prefix) => ({ prefix, shape: family.errorShape })))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  return (url) => {
    const path = pathOf(url);
    return prefixes.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`))?.shape ?? unclaimed;
  };
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/**
 * The root error handler and 404s, each in the shape of the family the path belongs to; a 404 on
 * a path no family claims in `notFoundShapeFor`'s (the API's composition says what a client of any
 * of its families may meet there).
 */
export function answerUnroutedInFamilyShape(
  app: FastifyInstance,
  shapeFor: ShapeForPath,
  notFoundShapeFor: ShapeForPath = shapeFor,
): void {
  app.setErrorHandler((err, request, reply) => errorHandlerFor(shapeFor(request.url))(err, request, reply));
  app.setNotFoundHandler((request, reply) =>
    errorHandlerFor(notFoundShapeFor(request.url))(
      new AppError('RESOURCE_NOT_FOUND', `No such route: ${request.method} ${pathOf(request.url)}`),
      request,
      reply,
    ),
  );
}

/** fastify's `frameworkErrors`: a URL that is not valid percent-encoding, a path parameter longer than the router takes. */
export function frameworkErrorsInFamilyShape(shapeFor: ShapeForPath) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const error: unknown =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('URI_TOO_LONG', 'The URL is too long: a path segment is longer than the server takes')
        : err.code === 'FST_ERR_BAD_URL'
          ? new AppError(
              'INVALID_PARAMETER',
              'The URL is not valid: a % in it does not begin a percent-encoded UTF-8 character',
            )
          : err;
    void errorHandlerFor(shapeFor(request.url))(error, request, reply);
  };
}

/**
 * Node's HTTP parser refuses a request before fastify sees it (headers past their size limit, a
 * request line that is not HTTP) and fastify writes a fixed body. This writes the family's shape
 * instead, choosing the family from the request line when the bytes received hold it. A request
 * line that did not end within the limit is a URL too long: 414, not 431.
 */
export function clientErrorInFamilyShape(shapeFor: ShapeForPath) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const head = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 16_384).toString('latin1') : '';
    const requestLine = /^[A-Z]+ (\S+)/.exec(head);
    const lineEnded = head.includes('\r\n');
    const error: PublicError =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { code: 'TIMEOUT', statusCode: 408, message: 'The request did not arrive in time' }
        : err.code === 'HPE_HEADER_OVERFLOW' && requestLine && !lineEnded
          ? toPublicError(new AppError('URI_TOO_LONG', 'The URL is too long'))
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? toPublicError(new AppError('HEADERS_TOO_LARGE', 'The request headers are too large'))
            : toPublicError(new AppError('INVALID_PARAMETER', 'The request is not valid HTTP'));
    const url = requestLine?.[1] ?? '/';
    const body = JSON.stringify(shapeFor(url)(error, { url }));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? 'Error'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
