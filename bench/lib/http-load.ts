import { Pool } from 'undici';

export interface HttpLoadOptions {
  readonly origin: string;
  readonly path: string;
  readonly total: number;
  readonly concurrency: number;
  readonly bodyAt: (i: number) => string;
  readonly timeoutMs: number;
}

export interface HttpLoadResult {
  /** performance.now() when the first request went out and when the last answer was read. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** Milliseconds from sending each request to reading its whole answer, in completion order. */
  readonly latenciesMs: Float64Array;
  /** Answers by status code; transport failures under `error:<code>`. */
  readonly statuses: Record<string, number>;
  readonly firstError?: string;
}

/**
 * Closed-loop load: `concurrency` workers on as many keep-alive connections, each sending its
 * next request as soon as the previous answer is read. Latency therefore includes no queueing
 * inside the client, and the rate is what the server sustains at that many requests open.
 */
export async function runHttpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const pool = new Pool(options.origin, {
    connections: options.concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const latencies = new Float64Array(options.total);
  const statuses: Record<string, number> = {};
  let next = 0;
  let done = 0;
  let firstError: string | undefined;

  const worker = async () => {
    for (let i = next++; i < options.total; i = next++) {
      const sent = performance.now();
      let key: string;
      try {
        const res = await pool.request({
          path: options.path,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: options.bodyAt(i),
        });
        const text = await res.body.text();
        key = String(res.statusCode);
        if (res.statusCode >= 300 && firstError === undefined) firstError = `${res.statusCode} ${text.slice(0, 300)}`;
      } catch (err) {
        key = `error:${(err as { code?: string }).code ?? (err as Error).name}`;
        firstError ??= String(err);
      }
      latencies[done++] = performance.now() - sent;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  };

  const startedAt = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const endedAt = performance.now();
  await pool.close();
  return {
    startedAt,
    endedAt,
    latenciesMs: latencies.subarray(0, done),
    statuses,
    ...(firstError ? { firstError } : {}),
  };
}

/** How many answers were 2xx. */
export function successes(statuses: Record<string, number>): number {
  return Object.entries(statuses).reduce((n, [k, v]) => (/^2\d\d$/.test(k) ? n + v : n), 0);
}
