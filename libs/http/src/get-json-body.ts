import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { jsonValueError } from './json-value-check.js';

/**
 * The JSON object a GET carries in its body, or undefined when it has none. fastify never reads
 * the body of a GET; a route whose clients send their parameters there (Elasticsearch style, as
 * EverMemOS's do) reads it itself with this, within the route's body limit. Only such routes call
 * it, so a GET elsewhere keeps ignoring its body.
 */
export async function readGetJsonBody(request: FastifyRequest): Promise<Record<string, unknown> | undefined> {
  const limit = request.routeOptions.bodyLimit ?? 1_048_576;
  const declared = Number(request.headers['content-length'] ?? '');
  if (declared > limit) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    // keep draining past the limit (the answer goes out once the request is read) but hold nothing more
    if (size <= limit) chunks.push(buffer);
  }
  if (size > limit) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('INVALID_PARAMETER', 'Data format error: the request body must be a JSON object');
  }
  // the same refusals the JSON parser makes of other bodies
  const refused = jsonValueError(parsed);
  if (refused) throw refused;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AppError('INVALID_PARAMETER', 'Data format error: the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A GET's parameters: its query string with its JSON body laid over it (the body wins, as in EverMemOS). */
export async function queryWithGetBody(request: FastifyRequest): Promise<Record<string, unknown>> {
  const body = await readGetJsonBody(request);
  return { ...(request.query as Record<string, unknown>), ...body };
}
