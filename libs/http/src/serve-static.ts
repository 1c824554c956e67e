import { createReadStream } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface StaticSiteOptions {
  /** Where the site is served: `/console` serves `/console/` and everything under it. */
  readonly prefix: string;
  /** The folder of built files; nothing outside it is ever read. */
  readonly root: string;
  /** Headers on every answer of the site (a content security policy, for instance). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Answered for paths that name no file and have no extension: a single-page app's own routes. */
  readonly fallback?: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** A bundler's content-hashed name (`index-B3x9_kQa.js`): the bytes never change under it. */
const HASHED = /[.-][A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/**
 * Serves a folder of built files under a prefix, to anyone: the files hold no data, and every
 * call the page makes carries the caller's own credentials. Content-hashed files are cached for
 * a year, everything else is revalidated (so a new build shows at the next load); a path that
 * leaves the folder (`..`, an encoded slash, a symbolic link out) or names a dotfile is 404, as
 * is a missing file with an extension, while a missing path without one gets the fallback page.
 */
export async function serveStatic(app: FastifyInstance, options: StaticSiteOptions): Promise<void> {
  const prefix = options.prefix.replace(/\/+$/, '');
  const root = await realpath(options.root).catch(() => {
    app.log.warn({ root: options.root }, 'static site folder missing: its pages answer 404');
    return resolve(options.root);
  });
  const fallback = options.fallback ?? 'index.html';
  const route = { schema: { hide: true }, config: { openToAll: true } };
  const common = (reply: FastifyReply) => {
    void reply.header('x-content-type-options', 'nosniff');
    for (const [name, value] of Object.entries(options.headers ?? {})) void reply.header(name, value);
  };

  app.get(prefix, route, async (request, reply) => {
    const query = request.url.slice(request.url.split('?')[0]!.length);
    return reply.redirect(`${prefix}/${query}`, 308);
  });
  app.get(`${prefix}/*`, route, async (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    common(reply);
    const wanted = request.params['*'];
    const file =
      (await inside(root, wanted)) ?? ((await isPageRoute(root, wanted)) ? await inside(root, fallback) : undefined);
    if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const tag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
    void reply
      .header('etag', tag)
      .header('last-modified', new Date(file.mtimeMs).toUTCString())
      .header('cache-control', HASHED.test(file.path) ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream');
    if (request.headers['if-none-match'] === tag) return reply.code(304).send();
    void reply.header('content-length', file.size);
    return reply.send(createReadStream(file.path));
  });
}

/**
 * A route of the page names no file: no dot in its last segment (so no dotfile either), or a
 * path under a folder the site does not have, whose last segment is an id that may hold a dot
 * (`conversations/my-app.default.svc`). A missing file in one of the site's folders stays 404.
 */
async function isPageRoute(root: string, path: string): Promise<boolean> {
  const segments = path.split('/').filter((s) => s !== '');
  if (!(segments.at(-1) ?? '').includes('.')) return true;
  if (segments.length < 2 || segments.some((s) => s.startsWith('.') || s.includes('\\') || s.includes('\0')))
    return false;
  return lstat(join(root, segments[0]!)).then(
    () => false,
    () => true,
  );
}

/** The regular file `path` names inside `root`, or undefined when there is none or it would leave `root`. */
async function inside(
  root: string,
  path: string,
): Promise<{ path: string; size: number; mtimeMs: number } | undefined> {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.length === 0) segments.push('index.html');
  // Each segment is a plain name: no parent, no dotfile, no separator or NUL smuggled in by decoding.
  if (segments.some((s) => s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return undefined;
  const candidate = resolve(root, ...segments);
  if (!candidate.startsWith(root + sep)) return undefined;
  try {
    const real = await realpath(candidate);
    if (!real.startsWith(root + sep)) return undefined;
    const info = await stat(real);
    return info.isFile() ? { path: real, size: info.size, mtimeMs: info.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}
