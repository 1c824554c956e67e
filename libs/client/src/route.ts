import type { z } from 'zod';
import type { Family } from './errors.js';

/**
 * One operation of the server as the client calls it: method, path template and the zod schemas
 * the server parses the call's path, query and body with (from @memstream/schemas). The route
 * table is the client's whole knowledge of the HTTP surface, and the OpenAPI agreement test
 * compares it with openapi.json operation by operation.
 */
export interface Route {
  readonly family: Family;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** With `{name}` placeholders, as OpenAPI writes them. */
  readonly path: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** Request headers the route reads beyond credentials. */
  readonly headers?: z.ZodType;
  /**
   * Served by the ingest gateway in the distributed mode: every write (a call that publishes or
   * changes state). Unset, a GET reads and any other method writes; the searches sent as POST say
   * `false`.
   */
  readonly gateway?: boolean;
  /** Answers Server-Sent Events. */
  readonly stream?: boolean;
}

export const route = <const R extends Route>(r: R): R => r;

/** Whether the ingest gateway serves the route (see Route.gateway); the read API serves the rest. */
export const servedByGateway = (r: Route): boolean => r.gateway ?? r.method !== 'GET';

/** An argument that is optional when every field of its schema is. */
type Part<K extends string, S> = S extends z.ZodType
  ? {} extends z.input<S>
    ? { readonly [k in K]?: z.input<S> }
    : { readonly [k in K]: z.input<S> }
  : unknown;

/** What a call of the route takes: path parameters, query and body, each typed by its schema's input. */
export type RouteInput<R extends Route> = Part<'params', R extends { params: infer S } ? S : undefined> &
  Part<'query', R extends { query: infer S } ? S : undefined> &
  Part<'body', R extends { body: infer S } ? S : undefined>;

/** The path with its placeholders filled in, each value escaped. */
export function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

/** Query parameters as the server reads them: lists as repeated keys, nothing for undefined. */
export function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) search.append(key, String(item));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
