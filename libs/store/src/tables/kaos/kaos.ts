import type { KaosEvent } from '@memstream/schemas';
import { databaseNow } from '../../database-clock.js';
import type { Queryable } from '../../store.js';
import { visibleTo } from '../memberships/conversation-access.js';
import { claimKaosSessionName, kaosSessionConversation, releaseKaosSessionNames } from './kaos-session-names.js';
import { cancelPendingTransfers } from '../memberships/memory-service-memberships.js';
import { insertOwnConversation, markOwnConversationsDeleted } from '../conversations/conversation-sql.js';

/** A KAOS session as stored; times are already in KAOS's text form (see ISO). */
export interface KaosSessionRow {
  agent: string;
  session_id: string;
  conversation_id: string;
  app_name: string;
  user_id: string;
  /** Creation order (KAOS lists sessions in the order they were made). */
  ord: string;
  next_event: number;
  created_at: string;
  updated_at: string;
}

/**
 * An event as KAOS serializes it (MemoryEvent.to_dict), with content and metadata as the JSON text
 * they were written as: parsing them here would turn 8.0 into 8 and round integers past 2^53.
 */
export interface KaosEventRow {
  readonly event_id: string;
  readonly timestamp: string;
  readonly event_type: string;
  readonly content_json: string;
  readonly metadata_json: string;
}

/**
 * A timestamp as Python's `datetime.isoformat()` writes an aware UTC one, which is what KAOS
 * clients compare and parse: microseconds unless they are zero, and `+00:00`. Done in SQL because
 * a JavaScript Date would drop the microseconds.
 */
const ISO = (column: string) =>
  `(regexp_replace(to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '\\.000000$', '') || '+00:00')`;

const SESSION = `s.agent, s.session_id, s.conversation_id, s.app_name, s.user_id, s.ord::text AS ord, s.next_event::int8 AS next_event,
  ${ISO('s.created_at')} AS created_at, ${ISO('s.updated_at')} AS updated_at`;
// json columns read as text: the client's own JSON text, never reparsed (see KaosEventRow).
const EVENT = `e.event_id, ${ISO('e.occurred_at')} AS timestamp, e.event_type, e.content::text AS content_json, e.metadata::text AS metadata_json`;

/** Who reads: a person sees the sessions whose conversations they may read; undefined sees the agent's all. */
export interface KaosViewer {
  readonly userId?: string | undefined;
}

function scope(
  params: unknown[],
  agent: string,
  viewer: KaosViewer,
  level: 'reader' | 'writer' | 'manager' = 'reader',
): string {
  const where = [`s.agent = $${params.push(agent)}`];
  if (viewer.userId !== undefined) where.push(visibleTo('s.conversation_id', params, viewer.userId, level));
  return where.join(' AND ');
}

/** Serializes every change to an agent's set of sessions (creation with eviction, cleanup) across replicas. */
export async function lockKaosAgent(tx: Queryable, agent: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('kaos:' || $1, 0))`, [agent]);
}

/**
 * The session an agent names by `sessionId`, locked for the transaction when `forUpdate` (an
 * append or a deletion). Its conversation comes from the names table (one shard, by agent), then
 * the session from its own group's shard: an append locks nothing of the names. A session
 * deleted or started over between the two reads is looked up again by its new name row; the
 * same conversation found twice is one the viewer may not see.
 */
export async function findKaosSession(
  q: Queryable,
  agent: string,
  sessionId: string,
  options: { viewer?: KaosViewer; forUpdate?: boolean } = {},
): Promise<KaosSessionRow | undefined> {
  let tried: string | undefined;
  for (;;) {
    const conversationId = await kaosSessionConversation(q, agent, sessionId);
    if (conversationId === undefined || conversationId === tried) return undefined;
    const params: unknown[] = [conversationId, agent, sessionId];
    const viewer = options.viewer?.userId;
    const visible = viewer === undefined ? '' : ` AND ${visibleTo('s.conversation_id', params, viewer)}`;
    const { rows } = await q.query<KaosSessionRow>(
      `SELECT ${SESSION} FROM kaos_sessions s
       WHERE s.conversation_id = $1 AND s.agent = $2 AND s.session_id = $3${visible}${options.forUpdate ? ' FOR UPDATE OF s' : ''}`,
      params,
    );
    if (rows[0]) return rows[0];
    tried = conversationId;
  }
}

/**
 * Makes a session, unless its name is held: the name row goes first, so of two creates of one
 * name at once the second waits for the first and then stores nothing (false). The agent's lock
 * already makes the converter's creates take turns; the key is what holds for every writer.
 */
export async function insertKaosSession(
  tx: Queryable,
  s: {
    agent: string;
    sessionId: string;
    conversationId: string;
    appName: string;
    userId: string;
    ord?: string | undefined;
  },
): Promise<boolean> {
  if (!(await claimKaosSessionName(tx, s.agent, s.sessionId, s.conversationId))) return false;
  await insertOwnConversation(tx, {
    id: s.conversationId,
    sourceApi: 'kaos',
    metadata: { kaos: { agent: s.agent, session_id: s.sessionId, app_name: s.appName } },
  });
  // A session started over keeps its place in the listing, as a Python dict keeps a key's.
  await tx.query(
    `INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id, ord)
     VALUES ($1, $2, $3, $4, $5, COALESCE($6::int8, nextval(pg_get_serial_sequence('kaos_sessions', 'ord'))))`,
    [s.agent, s.sessionId, s.conversationId, s.appName, s.userId, s.ord ?? null],
  );
  return true;
}

/**
 * Deletes sessions and their events; their conversations are marked deleted (as a memory-service
 * deletion does), so their messages and memories are hidden in every family. `updatedBefore`: only
 * those still not updated since then, checked on each row as it is deleted (a cleanup's sessions
 * were chosen unlocked; one appended to meanwhile stays). Returns how many went.
 */
export async function deleteKaosSessions(
  tx: Queryable,
  conversationIds: readonly string[],
  updatedBefore?: string,
): Promise<number> {
  if (conversationIds.length === 0) return 0;
  const { rows: gone } = await tx.query<{ agent: string; conversation_id: string }>(
    `DELETE FROM kaos_sessions WHERE conversation_id = ANY($1::text[]) AND ($2::timestamptz IS NULL OR updated_at < $2::timestamptz)
     RETURNING agent, conversation_id`,
    [[...conversationIds], updatedBefore ?? null],
  );
  await releaseKaosSessionNames(tx, gone);
  // the database's clock: messages stored after the deletion are told apart by it (see deleteConversationGroup)
  const now = await databaseNow(tx);
  await markOwnConversationsDeleted(tx, conversationIds, now);
  // A session is its own group: an ownership offer made on it through the memory-service ends with it.
  await cancelPendingTransfers(tx, conversationIds, undefined, now);
  return gone.length;
}

/**
 * Makes room for one more session as KAOS does: at `maxSessions` or more, the least recently
 * updated tenth (at least one) goes. Both the count and the choice are of the sessions `creator`
 * manages: a person's share of the agent is the sessions they could delete themselves, so their
 * creates never evict anyone else's; an agent or the local user (creator {}) manages them all, as
 * a KAOS pod its own memory. The caller holds the agent's lock, which orders every chooser; the
 * sessions, spread over the agent's groups, are chosen without a row lock (Citus takes one only
 * on one shard) and locked by their deletion, which waits for an append in flight as the lock did.
 */
export async function evictKaosSessions(
  tx: Queryable,
  agent: string,
  maxSessions: number,
  creator: KaosViewer = {},
): Promise<number> {
  const params: unknown[] = [];
  const where = scope(params, agent, creator, 'manager');
  const { rows } = await tx.query<{ n: string }>(`SELECT count(*) AS n FROM kaos_sessions s WHERE ${where}`, params);
  if (Number(rows[0]!.n) < maxSessions) return 0;
  const oldest = await tx.query<{ conversation_id: string }>(
    `SELECT s.conversation_id FROM kaos_sessions s WHERE ${where} ORDER BY s.updated_at, s.ord LIMIT $${params.push(Math.max(1, Math.floor(maxSessions / 10)))}`,
    params,
  );
  return deleteKaosSessions(
    tx,
    oldest.rows.map((r) => r.conversation_id),
  );
}

/**
 * Sessions of the agent not updated since `before` (a person's: only those they may manage), read
 * without a row lock across the agent's groups: deleteKaosSessions with `before` locks each and
 * checks it is still stale.
 */
export async function staleKaosSessions(
  tx: Queryable,
  agent: string,
  before: string,
  viewer: KaosViewer,
): Promise<string[]> {
  const params: unknown[] = [];
  const where = scope(params, agent, viewer, 'manager');
  const { rows } = await tx.query<{ conversation_id: string }>(
    `SELECT s.conversation_id FROM kaos_sessions s WHERE ${where} AND s.updated_at < $${params.push(before)}::timestamptz`,
    params,
  );
  return rows.map((r) => r.conversation_id);
}

/**
 * Appends events to a locked session: an event id already in the session (a resend, a
 * redelivery) is stored once; then only the latest `cap.maxEvents` are kept, as KAOS's bounded
 * deque keeps them. Returns the events stored now, in order; or undefined, storing nothing, when
 * keeping within the cap would drop events and `cap.mayDrop` is false (the caller could not
 * delete them itself: a writer of someone else's session).
 */
export async function appendKaosEvents(
  tx: Queryable,
  session: KaosSessionRow,
  events: readonly KaosEvent[],
  cap: { readonly maxEvents: number; readonly mayDrop: boolean },
): Promise<KaosEvent[] | undefined> {
  const { rows: existing } = await tx.query<{ event_id: string }>(
    `SELECT event_id FROM kaos_events WHERE conversation_id = $1 AND event_id = ANY($2::text[])`,
    [session.conversation_id, events.map((e) => e.event_id)],
  );
  const seen = new Set(existing.map((r) => r.event_id));
  const fresh = events.filter((e) => !seen.has(e.event_id) && (seen.add(e.event_id), true));
  const next = Number(session.next_event);
  // Events numbered below this one are past the cap once the fresh ones are in.
  const keepFrom = next + fresh.length - cap.maxEvents;
  if (fresh.length > 0 && !cap.mayDrop) {
    const { rows } = await tx.query<{ drops: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM kaos_events WHERE conversation_id = $1 AND seq < $2) AS drops`,
      [session.conversation_id, keepFrom],
    );
    if (rows[0]!.drops) return undefined;
  }
  if (fresh.length > 0) {
    await tx.query(
      `INSERT INTO kaos_events (conversation_id, seq, event_id, occurred_at, event_type, content, metadata)
       SELECT $1, $2::int8 + t.i - 1, t.id, t.ts, t.type, t.content::json, t.metadata::json
       FROM unnest($3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS t(id, ts, type, content, metadata, i)`,
      [
        session.conversation_id,
        next,
        fresh.map((e) => e.event_id),
        fresh.map((e) => e.timestamp),
        fresh.map((e) => e.event_type),
        fresh.map((e) => e.content_json ?? JSON.stringify(e.content ?? null)),
        fresh.map((e) => e.metadata_json ?? JSON.stringify(e.metadata)),
      ],
    );
    await tx.query(`DELETE FROM kaos_events WHERE conversation_id = $1 AND seq < $2`, [
      session.conversation_id,
      keepFrom,
    ]);
  }
  // Every append counts as activity, as KAOS's add_event sets updated_at. On the database's clock,
  // as created_at is: sessions are evicted in updated_at order, and clients see both to the microsecond.
  await tx.query(
    `UPDATE kaos_sessions SET next_event = next_event + $2, updated_at = $3::timestamptz WHERE conversation_id = $1`,
    [session.conversation_id, fresh.length, await databaseNow(tx)],
  );
  return fresh;
}

/** Session ids in creation order, optionally of one user. */
export async function listKaosSessions(
  q: Queryable,
  agent: string,
  viewer: KaosViewer,
  userId?: string,
): Promise<string[]> {
  const params: unknown[] = [];
  let where = scope(params, agent, viewer);
  if (userId !== undefined) where += ` AND s.user_id = $${params.push(userId)}`;
  const { rows } = await q.query<{ session_id: string }>(
    `SELECT s.session_id FROM kaos_sessions s WHERE ${where} ORDER BY s.ord`,
    params,
  );
  return rows.map((r) => r.session_id);
}

/** The bytes of JSON a read of a session's events would send (content and metadata as stored), none of it read. */
export async function kaosEventBytes(q: Queryable, conversationId: string, types?: readonly string[]): Promise<number> {
  const params: unknown[] = [conversationId];
  const typed = types ? ` AND e.event_type = ANY($${params.push([...types])}::text[])` : '';
  const { rows } = await q.query<{ bytes: string }>(
    `SELECT coalesce(sum(octet_length(e.content::text) + octet_length(e.metadata::text)), 0)::int8::text AS bytes
       FROM kaos_events e WHERE e.conversation_id = $1${typed}`,
    params,
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** A session's events, oldest first, optionally of some types only. */
export async function kaosSessionEvents(
  q: Queryable,
  conversationId: string,
  types?: readonly string[],
  latest?: number,
): Promise<KaosEventRow[]> {
  const params: unknown[] = [conversationId];
  const typed = types ? ` AND e.event_type = ANY($${params.push([...types])}::text[])` : '';
  // only the last `latest` are read (the context): a session's events may be hundreds of MiB
  const last = latest === undefined ? '' : ` ORDER BY e.seq DESC LIMIT $${params.push(latest)}`;
  const { rows } = await q.query<KaosEventRow>(
    latest === undefined
      ? `SELECT ${EVENT} FROM kaos_events e WHERE e.conversation_id = $1${typed} ORDER BY e.seq`
      : `SELECT ${EVENT} FROM (SELECT * FROM kaos_events e WHERE e.conversation_id = $1${typed}${last}) e ORDER BY e.seq`,
    params,
  );
  return rows;
}

/**
 * Events of the agent's sessions (or of one), oldest first, as KAOS concatenates its sessions'
 * events in session order and slices that list: `{ latest: n }` keeps its last n, `{ skip: n }`
 * drops its first n (KAOS's `events[-limit:]` with a limit of 0 or below).
 */
export async function latestKaosEvents(
  q: Queryable,
  agent: string,
  viewer: KaosViewer,
  slice: ({ latest: number } | { skip: number }) & { maxBytes?: number },
  sessionId?: string,
): Promise<KaosEventRow[] | { tooLarge: number }> {
  const params: unknown[] = [];
  let where = scope(params, agent, viewer);
  if (sessionId !== undefined) {
    // one session: found by its name, then read on its own group's shard alone
    const conversationId = await kaosSessionConversation(q, agent, sessionId);
    if (conversationId === undefined) return [];
    where += ` AND s.conversation_id = $${params.push(conversationId)}`;
  }
  const from = `FROM kaos_sessions s JOIN kaos_events e ON e.conversation_id = s.conversation_id WHERE ${where}`;
  if (slice.maxBytes !== undefined) {
    // The slice's size first, from the stored lengths: an agent's events across its sessions may
    // be gigabytes, and an answer is built whole.
    const sized = [...params];
    const size = `octet_length(e.content::text) + octet_length(e.metadata::text)`;
    const { rows: measured } = await q.query<{ bytes: string }>(
      'latest' in slice
        ? `SELECT coalesce(sum(b), 0)::int8::text AS bytes FROM (
             SELECT ${size} AS b ${from} ORDER BY s.ord DESC, e.seq DESC LIMIT $${sized.push(slice.latest)}) t`
        : `SELECT coalesce(sum(b), 0)::int8::text AS bytes FROM (
             SELECT ${size} AS b ${from} ORDER BY s.ord, e.seq OFFSET $${sized.push(slice.skip)}) t`,
      sized,
    );
    const bytes = Number(measured[0]?.bytes ?? 0);
    if (bytes > slice.maxBytes) return { tooLarge: bytes };
  }
  const { rows } = await q.query<KaosEventRow>(
    'latest' in slice
      ? `SELECT event_id, timestamp, event_type, content_json, metadata_json FROM (
           SELECT ${EVENT}, s.ord, e.seq ${from} ORDER BY s.ord DESC, e.seq DESC LIMIT $${params.push(slice.latest)}
         ) tail ORDER BY ord, seq`
      : `SELECT ${EVENT} ${from} ORDER BY s.ord, e.seq OFFSET $${params.push(slice.skip)}`,
    params,
  );
  return rows;
}

/** Sessions and events the viewer reaches; the average is truncated, as KAOS's int() does. */
export async function kaosStats(
  q: Queryable,
  agent: string,
  viewer: KaosViewer,
): Promise<{ total_sessions: number; total_events: number; avg_events_per_session: number }> {
  const params: unknown[] = [];
  const where = scope(params, agent, viewer);
  const { rows } = await q.query<{ sessions: string; events: string }>(
    `SELECT count(*) AS sessions, COALESCE(sum((SELECT count(*) FROM kaos_events e WHERE e.conversation_id = s.conversation_id)), 0) AS events
     FROM kaos_sessions s WHERE ${where}`,
    params,
  );
  const sessions = Number(rows[0]!.sessions);
  const events = Number(rows[0]!.events);
  return {
    total_sessions: sessions,
    total_events: events,
    avg_events_per_session: sessions === 0 ? 0 : Math.trunc(events / sessions),
  };
}
