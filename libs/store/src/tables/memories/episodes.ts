import { databaseNow } from '../../database-clock.js';
import type { Queryable, Store } from '../../store.js';
import { groupKeyOf } from '../conversations/conversation-sql.js';
import { readableMessagesAfter } from '../conversations/message-sql.js';
import { quietConversations } from '../conversations/conversation-sql.js';
import { lastEpisodeEnd } from './memory-sql.js';

export type CloseReason = 'message_cap' | 'token_cap' | 'silence' | 'idle' | 'flush' | 'topic';
export type EpisodeStatus = 'pending' | 'extracted' | 'failed';

export interface Episode {
  readonly id: number;
  readonly conversation_id: string;
  /** The conversation's group, the shard key: what a claim and a completion are keyed by. */
  readonly group_key: string;
  readonly start_seq: number;
  readonly end_seq: number;
  readonly message_ids: string[];
  readonly start_time: Date;
  readonly end_time: Date;
  readonly close_reason: CloseReason;
  readonly status: EpisodeStatus;
  readonly version: number;
  readonly attempts: number;
  readonly next_attempt_at: Date;
  readonly error: string | null;
}

const COLUMNS = `id, conversation_id, group_key, start_seq, end_seq, message_ids, start_time, end_time, close_reason,
  status, version, attempts, next_attempt_at, error`;

/** A message of a conversation's open span: what boundary detection needs of it. */
export interface OpenMessage {
  readonly seq: number;
  readonly message_id: string;
  readonly created_at: Date;
  readonly chars: number;
}

export interface NewEpisode {
  readonly startSeq: number;
  readonly endSeq: number;
  readonly messageIds: readonly string[];
  readonly startTime: Date;
  readonly endTime: Date;
  readonly reason: CloseReason;
}

/**
 * Runs fn holding the conversation's episode lock, in one transaction. Boundary detection, a
 * flush and a deletion all change where the open span starts; the lock makes them take turns
 * across replicas, so two never close overlapping episodes.
 */
export function withEpisodeLock<T>(
  store: Store,
  conversationId: string,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  return store.transaction(async (tx) => {
    await lockEpisodes(tx, conversationId);
    return fn(tx);
  });
}

/** Takes a conversation's episode lock for the rest of the caller's transaction. */
export async function lockEpisodes(tx: Queryable, conversationId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('episodes:' || $1))`, [conversationId]);
}

/**
 * The conversation's messages after its last episode, in order (at most `limit`). Only what
 * everyone in the conversation may read: an episode's memories are shown to all its readers, so
 * agent-only messages (migration 0012) never enter one.
 */
export async function openSpan(q: Queryable, conversationId: string, limit: number): Promise<OpenMessage[]> {
  const { rows } = await q.query<OpenMessage>(
    `${readableMessagesAfter('$1', lastEpisodeEnd('$1'))}
     ORDER BY seq LIMIT $2`,
    [conversationId, limit],
  );
  return rows;
}

/**
 * The messages boundary detection saw when message `seq` arrived: from the end of the last episode
 * that message could not have closed, through `seq` (at most `limit`). An episode the rules closed
 * at `seq - 1` or later may be that message's doing, so it does not bound the span; one closed by
 * a flush, idleness or a topic end at `seq - 1` does (the message started after it).
 */
export async function spanThrough(
  q: Queryable,
  conversationId: string,
  seq: number,
  limit: number,
): Promise<OpenMessage[]> {
  const { rows } = await q.query<OpenMessage>(
    `${readableMessagesAfter(
      '$1',
      `COALESCE((SELECT max(end_seq) FROM episodes WHERE conversation_id = $1
         AND (end_seq < $2 - 1 OR end_seq = $2 - 1 AND close_reason IN ('flush', 'idle', 'topic'))), -1)`,
      '$2',
    )}
     ORDER BY seq LIMIT $3`,
    [conversationId, seq, limit],
  );
  return rows;
}

/** The episodes of a conversation that hold any of the given message numbers. */
export async function episodesHolding(
  q: Queryable,
  conversationId: string,
  seqs: readonly number[],
): Promise<Episode[]> {
  const { rows } = await q.query<Episode>(
    `SELECT ${COLUMNS} FROM episodes
     WHERE conversation_id = $1 AND EXISTS (SELECT 1 FROM unnest($2::int8[]) s WHERE s BETWEEN start_seq AND end_seq)
     ORDER BY start_seq`,
    [conversationId, [...seqs]],
  );
  return rows;
}

/** Closes episodes (each must start after the last one); an episode that exists already is kept. */
export async function insertEpisodes(
  q: Queryable,
  conversationId: string,
  episodes: readonly NewEpisode[],
): Promise<Episode[]> {
  if (episodes.length === 0) return [];
  const { rows } = await q.query<Episode>(
    `INSERT INTO episodes (conversation_id, start_seq, end_seq, message_ids, start_time, end_time, close_reason, group_key)
     SELECT $1, s, e, ids::text[], st, et, r, ${groupKeyOf('$1')}
     FROM unnest($2::int8[], $3::int8[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::text[]) AS t(s, e, ids, st, et, r)
     ON CONFLICT (conversation_id, start_seq, group_key) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      conversationId,
      episodes.map((e) => e.startSeq),
      episodes.map((e) => e.endSeq),
      // A text[] per episode travels as its array literal: unnest cannot take an array of arrays of different lengths.
      episodes.map((e) => arrayLiteral(e.messageIds)),
      episodes.map((e) => e.startTime.toISOString()),
      episodes.map((e) => e.endTime.toISOString()),
      episodes.map((e) => e.reason),
    ],
  );
  return rows;
}

/**
 * Takes a group's episodes for extraction: the given ids, or (ids undefined) up to `limit` due
 * ones. A taken episode is leased for `leaseMs`; a worker that dies loses it when the lease runs
 * out. Leases and due times are on the database's clock, which every extractor replica shares.
 * Locked by the group, the shard key, so the claim stays on the node that holds it (docs/store.md).
 */
export async function claimEpisodes(
  q: Queryable,
  options: { group: string; ids?: readonly number[]; limit: number; leaseMs: number; now?: string },
): Promise<Episode[]> {
  const { rows } = await q.query<Episode>(
    `UPDATE episodes SET claimed_until = $4::timestamptz + make_interval(secs => $3::float8 / 1000), attempts = attempts + 1,
       updated_at = $4::timestamptz
     WHERE group_key = $5 AND id IN (
       SELECT id FROM episodes
       WHERE group_key = $5 AND status <> 'extracted' AND (claimed_until IS NULL OR claimed_until < $4::timestamptz)
         AND ($1::int8[] IS NOT NULL AND id = ANY($1::int8[]) OR $1::int8[] IS NULL AND next_attempt_at <= $4::timestamptz)
       ORDER BY next_attempt_at, id LIMIT $2
       FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [
      options.ids ? [...options.ids] : null,
      options.limit,
      options.leaseMs,
      options.now ?? (await databaseNow(q)),
      options.group,
    ],
  );
  return rows;
}

/**
 * Takes up to `limit` due episodes of any group, the first by due time: their groups are found
 * without a lock (a read of every shard), then each group's share is claimed by claimEpisodes, a
 * statement per group, as the keyword fold takes its groups. An episode another claimer took
 * meanwhile is skipped, so two claimers never take one episode.
 */
export async function claimDueEpisodes(q: Queryable, options: { limit: number; leaseMs: number }): Promise<Episode[]> {
  const now = await databaseNow(q);
  const { rows: groups } = await q.query<{ group_key: string; n: number }>(
    `SELECT group_key, count(*)::int AS n FROM (
       SELECT group_key, next_attempt_at, id FROM episodes
       WHERE status <> 'extracted' AND (claimed_until IS NULL OR claimed_until < $2::timestamptz)
         AND next_attempt_at <= $2::timestamptz
       ORDER BY next_attempt_at, id LIMIT $1) due
     GROUP BY group_key ORDER BY min(next_attempt_at), min(id)`,
    [options.limit, now],
  );
  const claimed: Episode[] = [];
  for (const { group_key: group, n } of groups)
    claimed.push(...(await claimEpisodes(q, { group, limit: n, leaseMs: options.leaseMs, now })));
  return claimed;
}

/** Marks a claimed episode failed and when to try again; a no-op when it changed meanwhile. */
export async function failEpisode(
  q: Queryable,
  episode: Episode,
  error: string,
  retryAt: Date,
  at: Date = new Date(),
): Promise<void> {
  await q.query(
    `UPDATE episodes SET status = 'failed', error = $3, next_attempt_at = $4, claimed_until = NULL, updated_at = $5::timestamptz
     WHERE id = $1 AND version = $2`,
    [episode.id, episode.version, error.slice(0, 2000), retryAt.toISOString(), at.toISOString()],
  );
}

/**
 * Conversations whose open span has had no new message for `idleMs` (by arrival time, so an
 * import of old messages is not closed at once): their last episode is closed by the sweeper.
 * Only conversations that went idle within the last day are looked at, so a sweep does not walk
 * every conversation ever seen; one that went idle while no extractor ran for a day stays open
 * (its messages still searchable, and listed as pending) until its next message or a flush.
 */
export async function idleConversations(q: Queryable, idleMs: number, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    quietConversations(
      '$1',
      (c) =>
        `${c.lastSeq} > COALESCE((SELECT max(end_seq) FROM episodes e WHERE e.group_key = ${c.group} AND e.conversation_id = ${c.id}), -1)`,
      '$2',
    ),
    [idleMs, limit],
  );
  return rows.map((r) => r.id);
}

export async function listEpisodesByIds(q: Queryable, ids: readonly number[]): Promise<Episode[]> {
  const { rows } = await q.query<Episode>(
    `SELECT ${COLUMNS} FROM episodes WHERE id = ANY($1::int8[]) ORDER BY start_seq`,
    [[...ids]],
  );
  return rows;
}

/** The episode that holds a message, if any. */
export async function episodeOfMessage(
  q: Queryable,
  conversationId: string,
  messageId: string,
): Promise<Episode | undefined> {
  const { rows } = await q.query<Episode>(
    `SELECT ${COLUMNS} FROM episodes WHERE conversation_id = $1 AND $2 = ANY(message_ids) LIMIT 1`,
    [conversationId, messageId],
  );
  return rows[0];
}

/** Postgres array literal of text values, quoted so any character survives. */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
