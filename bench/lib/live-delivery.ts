import { Agent, Pool } from 'undici';
import type { ArkBatch } from './ark-workload.js';
import { summarizeLatencies, type LatencySummary } from './stats.js';
import { openTimedStream, type TimedStream } from './timed-sse.js';

export interface LiveDeliveryOptions {
  /** Where the POSTs go, and where the streams are read (another replica, or the same). */
  readonly writeOrigin: string;
  readonly streamOrigin: string;
  readonly sessions: readonly string[];
  readonly streams: number;
  readonly posts: number;
  /** Open loop: POST i is sent at start + i * intervalMs, whether or not earlier ones answered. */
  readonly intervalMs: number;
  /** A unique first word for post i, and the body carrying it. */
  readonly tokenOf: (i: number) => string;
  readonly bodyOf: (session: string, token: string, i: number) => ArkBatch;
  readonly frameTimeoutMs: number;
  readonly progress: (msg: string) => void;
}

export interface LiveDeliveryFigures {
  readonly sessions: number;
  readonly streams: number;
  readonly posts: number;
  readonly interval_ms: number;
  readonly achieved_posts_per_s: number;
  readonly max_posts_in_flight: number;
  readonly post_statuses: Readonly<Record<string, number>>;
  readonly post_latency_ms: LatencySummary;
  /** From just before a POST was sent to its frame's arrival, over every (stream, message) pair. */
  readonly delivery_ms: LatencySummary;
  readonly frames_expected: number;
  readonly frames_received: number;
  readonly frames_missing: number;
  readonly frames_duplicate: number;
  readonly frames_unexpected: number;
  /** Pairs whose frame arrived before the POST's answer was read. */
  readonly frames_before_post_answer: number;
  /** Streams ended by POST /session/{id}/complete with the spec's [STREAM_END] then [DONE]. */
  readonly streams_completed: number;
  readonly stream_errors: number;
  readonly first_error?: string;
}

/** The first word of a frame's string content: the live pass's token. */
export function firstWord(content: unknown): string | undefined {
  if (typeof content !== 'string') return undefined;
  const space = content.indexOf(' ');
  return space < 0 ? content : content.slice(0, space);
}

type Post = (batch: ArkBatch) => Promise<{ status: number; text: string }>;

/**
 * Live delivery, POST to SSE frame: seeds each session with one message (a stream without
 * from-beginning needs an existing session), opens the streams round-robin over the sessions,
 * waits until a barrier message has reached every stream (so every subscription is live, not
 * just answered), then sends the timed single-message POSTs open loop and matches each frame
 * to its POST by the token its content starts with. Ends by completing the sessions.
 */
export async function measureLiveDelivery(o: LiveDeliveryOptions): Promise<LiveDeliveryFigures> {
  const pool = new Pool(o.writeOrigin, {
    connections: 32,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  // Streams stay open for the whole pass: no body timeout; one connection each.
  const agent = new Agent({ headersTimeout: 30_000, bodyTimeout: 0, keepAliveTimeout: 1_000 });
  const streams: TimedStream[] = [];
  const post: Post = async (batch) => {
    const res = await pool.request({
      path: '/messages',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  try {
    streams.push(...(await openLiveStreams(o, post, agent)));
    o.progress(
      `${o.streams} streams live on ${o.sessions.length} sessions; ${o.posts} POSTs, one every ${o.intervalMs} ms`,
    );
    const tokens = Array.from({ length: o.posts }, (_, i) => o.tokenOf(i));
    const sent = await postOpenLoop(o, post, tokens);

    // Every 2xx POST owes a frame to every stream of its session (post i goes to session i mod L).
    const L = o.sessions.length;
    const owed = (j: number) => tokens.filter((_, i) => sent.ok[i] === 1 && i % L === j % L);
    const expected = streams.reduce((n, _, j) => n + owed(j).length, 0);
    const received = () => streams.reduce((n, s, j) => n + owed(j).filter((t) => s.arrivals.has(t)).length, 0);
    await waitUntil(() => received() >= expected, o.frameTimeoutMs);

    const delivery: number[] = [];
    let beforeAnswer = 0;
    let unexpected = 0;
    const indexOf = new Map(tokens.map((t, i) => [t, i]));
    for (const [j, s] of streams.entries()) {
      for (const [token, at] of s.arrivals) {
        const i = indexOf.get(token);
        if (i === undefined || i % L !== j % L) {
          unexpected++;
          continue;
        }
        delivery.push(at - sent.sentAt[i]!);
        if (at < sent.answeredAt[i]!) beforeAnswer++;
      }
    }
    const completed = await completeSessions(pool, o.sessions, streams, o.frameTimeoutMs);
    return {
      sessions: L,
      streams: o.streams,
      posts: o.posts,
      interval_ms: o.intervalMs,
      achieved_posts_per_s: Math.round((o.posts * 1000) / Math.max(1, sent.elapsedMs)),
      max_posts_in_flight: sent.maxInFlight,
      post_statuses: sent.statuses,
      post_latency_ms: summarizeLatencies(
        Float64Array.from({ length: o.posts }, (_, i) => sent.answeredAt[i]! - sent.sentAt[i]!),
      ),
      delivery_ms: summarizeLatencies(Float64Array.from(delivery)),
      frames_expected: expected,
      frames_received: delivery.length,
      frames_missing: expected - delivery.length,
      frames_duplicate: streams.reduce((n, s) => n + s.counts.duplicates, 0),
      frames_unexpected: unexpected,
      frames_before_post_answer: beforeAnswer,
      streams_completed: completed,
      stream_errors: streams.reduce((n, s) => n + s.counts.errors, 0),
      ...(sent.firstError ? { first_error: sent.firstError } : {}),
    };
  } finally {
    for (const s of streams) s.close();
    await Promise.all([pool.close(), agent.close()]);
  }
}

/** Seeds the sessions, opens stream j on session j mod L, and returns once a barrier message reached them all. */
async function openLiveStreams(o: LiveDeliveryOptions, post: Post, agent: Agent): Promise<TimedStream[]> {
  for (const [n, session] of o.sessions.entries()) {
    const seeded = await post(o.bodyOf(session, `seed_${n}`, -1));
    if (seeded.status !== 200) throw new Error(`seeding ${session}: ${seeded.status} ${seeded.text.slice(0, 300)}`);
  }
  const L = o.sessions.length;
  const streams = await Promise.all(
    Array.from({ length: o.streams }, (_, j) =>
      openTimedStream(`${o.streamOrigin}/stream/${o.sessions[j % L]!}`, agent, firstWord),
    ),
  );
  try {
    const refused = streams.find((s) => s.status !== 200);
    if (refused) throw new Error(`GET ${refused.url} answered ${refused.status}`);
    await Promise.all(o.sessions.map((session, n) => post(o.bodyOf(session, `barrier_${n}`, -1))));
    const live = await waitUntil(() => streams.every((s, j) => s.arrivals.has(`barrier_${j % L}`)), o.frameTimeoutMs);
    if (!live) throw new Error(`the barrier message did not reach every stream within ${o.frameTimeoutMs} ms`);
  } catch (err) {
    for (const s of streams) s.close();
    throw err;
  }
  for (const s of streams) s.arrivals.clear();
  return streams;
}

interface SentPosts {
  readonly sentAt: Float64Array;
  readonly answeredAt: Float64Array;
  /** 1 where the answer was 2xx. */
  readonly ok: Uint8Array;
  readonly statuses: Record<string, number>;
  readonly maxInFlight: number;
  readonly elapsedMs: number;
  readonly firstError: string | undefined;
}

/** POST i goes out at start + i * interval to session i mod L, whether or not earlier ones answered. */
async function postOpenLoop(o: LiveDeliveryOptions, post: Post, tokens: readonly string[]): Promise<SentPosts> {
  const sentAt = new Float64Array(tokens.length);
  const answeredAt = new Float64Array(tokens.length);
  const ok = new Uint8Array(tokens.length);
  const statuses: Record<string, number> = {};
  let firstError: string | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  for (const [i, token] of tokens.entries()) {
    const wait = start + i * o.intervalMs - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const batch = o.bodyOf(o.sessions[i % o.sessions.length]!, token, i);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    sentAt[i] = performance.now();
    const answered = post(batch).then(
      ({ status, text }) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) ok[i] = 1;
        else firstError ??= `${status} ${text.slice(0, 300)}`;
      },
      (err: unknown) => {
        const key = `error:${(err as { code?: string }).code ?? (err as Error).name}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
        firstError ??= String(err);
      },
    );
    pending.push(
      answered.finally(() => {
        answeredAt[i] = performance.now();
        inFlight--;
      }),
    );
  }
  await Promise.all(pending);
  return { sentAt, answeredAt, ok, statuses, maxInFlight, elapsedMs: performance.now() - start, firstError };
}

/** Completes every session and counts the streams that then closed with [STREAM_END] and [DONE]. */
async function completeSessions(
  pool: Pool,
  sessions: readonly string[],
  streams: readonly TimedStream[],
  timeoutMs: number,
): Promise<number> {
  for (const session of sessions) {
    const res = await pool.request({ path: `/session/${session}/complete`, method: 'POST' });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`POST /session/${session}/complete answered ${res.statusCode}`);
  }
  await waitUntil(() => streams.every((s) => s.isEnded()), timeoutMs);
  return streams.filter((s) => s.isEnded() && s.markers.slice(-2).join(' ') === '[STREAM_END] [DONE]').length;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
