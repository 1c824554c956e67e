import type { CanonicalMessage, SourceApi, Role } from '@memstream/schemas';
import { GENERIC_PLAN, type Queryable, type Store } from '../../store.js';
import { audienceIn, visibleTo } from '../memberships/conversation-access.js';
import { AppError, isAppError } from '@memstream/errors';
import { retryOnError } from '@memstream/retry';
import { keywordVectorSql, messageSearchText } from '../search/search-text.js';
import { insertSearchRowsSql } from '../search/search-rows.js';
import { lastEpisodeEnd } from '../memories/memory-sql.js';
import { recordOutcomesSql } from '../request-outcomes/request-outcomes.js';

/**
 * The loser of a race to store the same message runs again at once, and finds the row: the
 * winner has committed by the time the unique key refuses the loser. Five tries are plenty.
 */
const CONCURRENT_APPEND_RETRY = { attempts: 5, backoff: { initialDelayMs: 1, maxDelayMs: 10 } };

export interface NewMessage {
  readonly conversation_id: string;
  readonly message_id: string;
  readonly sender_id: string;
  readonly sender_name: string;
  readonly role: Role;
  readonly content: string;
  readonly created_at: Date;
  readonly refer_list: readonly string[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly source_api: SourceApi;
  /**
   * The conversation's group (docs/store.md), part of its key: a memory-service fork's is its
   * root's. Left out, the conversation is its own group, as in every family without forks.
   */
  readonly group_key?: string;
}

export interface AppendResult {
  /** True when the message was already stored (a redelivery or a resend): nothing was written. */
  readonly duplicate: boolean;
  readonly message: CanonicalMessage;
  /** False when the request already had an outcome (a redelivered event): the earlier one stands. */
  readonly outcomeRecorded: boolean;
}

interface MessageRow {
  conversation_id: string;
  seq: number;
  message_id: string;
  sender_id: string;
  sender_name: string;
  role: Role;
  content: string;
  created_at: Date;
  stored_at: Date;
  refer_list: string[];
  metadata: Record<string, unknown>;
  source_api: SourceApi;
}

const COLUMNS = `conversation_id, seq, message_id, sender_id, sender_name, role, content,
  created_at, stored_at, refer_list, metadata, source_api`;

/** Stores one message; see appendMessages. A race with a concurrent writer of the same message is retried. */
export async function appendMessage(store: Store, msg: NewMessage): Promise<AppendResult> {
  return retryOnError(async () => (await appendMessages(store, [{ message: msg }]))[0]!, {
    ...CONCURRENT_APPEND_RETRY,
    retriable: (err) => isAppError(err) && err.code === 'CONCURRENT_APPEND',
  });
}

export interface AppendItem {
  readonly message: NewMessage;
  /** When given, the write request's outcome is recorded in the same statement (the first outcome wins). */
  readonly requestId?: string;
}

export interface AppendOptions {
  /**
   * Whether the statement names the batch's groups beside their keys (`group_key = ANY(...)`),
   * so that a partitioned or distributed layout prunes to their partitions (shards) before it
   * runs. Default true. The plain layout has nothing to prune, and there the list is a trap for
   * a generic plan made while the table is small: the planner scans the key's index for the
   * groups (its third column) instead of probing it per message, a cost that then grows with the
   * table for the plan's life (appendByShardGroup passes false there; append-plan.test.ts).
   */
  readonly pruneByGroups?: boolean;
}

/**
 * Stores messages once each, in the order given, with the next sequence numbers of their
 * conversations, writes the keyword side of each new message's search row, and records the
 * outcome of each write request, in ONE statement: this is the ingest path, and round trips are
 * what it costs (a handful of messages per batch under HTTP load). The search row comes with the
 * message so that search is read-your-writes: whoever learns a write was stored (its held call,
 * the request status) can find it by its words; the indexer adds the vector later.
 *
 * How the numbers stay gapless: the conversations' rows are upserted in id order, which locks them
 * (so concurrent writers of a conversation queue up, and two batches never deadlock), and the
 * upsert itself adds the number of new messages to `next_seq`; waiting on a lock, Postgres
 * re-reads the row, so the base is always the committed one. Which messages are new is decided on
 * the statement's snapshot: a concurrent writer of the SAME message makes this statement fail on
 * the unique key, and it is retried (CONCURRENT_APPEND), finding the row the second time.
 */
export async function appendMessages(
  q: Queryable,
  items: readonly AppendItem[],
  o: AppendOptions = {},
): Promise<AppendResult[]> {
  if (items.length === 0) return [];
  const statements = o.pruneByGroups === false ? APPEND_UNPRUNED : APPEND_PRUNED;
  const msgs = items.map((i) => i.message);
  // Once each: the statement's parameter and the stored message's field (toISOString took 1.5 µs here).
  const createdAt = msgs.map((m) => m.created_at.toISOString());
  let rows: Array<{
    kind: 'm' | 'o';
    conversation_id: string;
    message_id: string;
    seq: number | null;
    stored_at: Date | null;
  }>;
  try {
    ({ rows } = await q.query(
      items.length <= GENERIC_PLAN_MAX_ITEMS ? statements.small : statements.large,
      appendParameters(items, createdAt),
    ));
  } catch (err) {
    if (
      (err as { code?: unknown }).code === '23505' &&
      /messages/.test(String((err as { constraint?: unknown }).constraint ?? (err as Error).message))
    ) {
      throw new AppError('CONCURRENT_APPEND', 'a concurrent writer stored the same message; retry', { cause: err });
    }
    throw err;
  }

  const inserted = new Map<string, { seq: number; stored_at: Date }>();
  const outcomeRecorded = new Set<string>();
  for (const r of rows) {
    if (r.kind === 'm') inserted.set(keyOf(r.conversation_id, r.message_id), { seq: r.seq!, stored_at: r.stored_at! });
    else outcomeRecorded.add(r.message_id); // the request id travels in this column
  }
  const missing = msgs.filter((m) => !inserted.has(keyOf(m.conversation_id, m.message_id)));
  const stored = new Map<string, CanonicalMessage>();
  if (missing.length > 0) {
    // Duplicates: read what is stored (rows from before, or from earlier in this batch).
    const existing = await q.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages
       WHERE (conversation_id, message_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [missing.map((m) => m.conversation_id), missing.map((m) => m.message_id)],
    );
    for (const r of existing.rows) stored.set(keyOf(r.conversation_id, r.message_id), toCanonical(r));
  }

  // A message and its retry in one batch (a producer resending at once): the statement inserts the
  // first, and the retry is its duplicate, answered with the message as the first stored it.
  const firstSeen = new Map<string, CanonicalMessage>();
  const storedAt = isoStrings();
  return items.map(({ message: m, requestId }, i) => {
    const key = keyOf(m.conversation_id, m.message_id);
    const fresh = inserted.get(key);
    const earlier = firstSeen.get(key);
    const isFirst = fresh !== undefined && earlier === undefined;
    // Field by field: an object spread of the input cost 5 µs a message on the ingest path.
    const message: CanonicalMessage | undefined = isFirst
      ? {
          conversation_id: m.conversation_id,
          seq: fresh.seq,
          message_id: m.message_id,
          sender_id: m.sender_id,
          sender_name: m.sender_name,
          role: m.role,
          content: m.content,
          created_at: createdAt[i]!,
          stored_at: storedAt(fresh.stored_at),
          refer_list: [...m.refer_list],
          metadata: { ...m.metadata },
          source_api: m.source_api,
        }
      : (earlier ?? stored.get(key));
    if (!message) throw new Error(`message ${m.message_id} of ${m.conversation_id} neither stored nor found`);
    if (isFirst) firstSeen.set(key, message);
    return { duplicate: !isFirst, message, outcomeRecorded: requestId !== undefined && outcomeRecorded.has(requestId) };
  });
}

/**
 * toISOString with the last answer kept: every row of one statement has the same `stored_at` (the
 * transaction's `now()`), so a batch of 800 converts one date instead of 800.
 */
function isoStrings(): (d: Date) => string {
  let lastTime = Number.NaN;
  let last = '';
  return (d) => {
    const t = d.getTime();
    if (t !== lastTime) {
      lastTime = t;
      last = d.toISOString();
    }
    return last;
  };
}

/**
 * Batches up to this many messages are appended with a generic plan (GENERIC_PLAN): planning
 * was most of the statement's cost for a handful of messages. The generic plan joins the batch's
 * rows pairwise (it cannot know their number), which costs nothing at this size and as much as
 * the planning it saves at 128; for 2,000 messages it was 3.5 times slower than a plan made for
 * them. `append-plan.test.ts` holds it to key lookups whatever the tables' statistics.
 */
export const GENERIC_PLAN_MAX_ITEMS = 64;

/** The append statement's parameters for `items`, appended at `at` (see appendSql). */
export function appendParameters(
  items: readonly AppendItem[],
  createdAt: readonly string[] = items.map((i) => i.message.created_at.toISOString()),
  at: Date = new Date(),
): unknown[] {
  const msgs = items.map((i) => i.message);
  const col = <T>(f: (m: NewMessage) => T) => msgs.map(f);
  return [
    col((m) => m.conversation_id),
    col((m) => m.message_id),
    col((m) => m.sender_id),
    col((m) => m.sender_name),
    col((m) => m.role),
    col((m) => m.content),
    createdAt,
    col((m) => JSON.stringify(m.refer_list)),
    col((m) => JSON.stringify(m.metadata)),
    col((m) => m.source_api),
    items.map((i) => i.requestId ?? null),
    msgs.map((m) => messageSearchText(m) || null),
    at,
    col((m) => m.group_key ?? m.conversation_id),
  ];
}

// $1..$10: the messages, column by column, in arrival order; $11: request ids (null: none);
// $12: the text each is searched by (null: nothing to search); $13: when this converter appended
// them, a conversation's updated_at; $14: each one's conversation group, so that the conversation
// is found (or made) under its key and the probes name the whole key. See APPEND_PRUNED.
function appendSql(pruneByGroups: boolean): string {
  return `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                       $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $14::text[])
    WITH ORDINALITY AS t(c, mid, sid, sname, role, content, created, refs, meta, src, rid, body, g, ord)
),
stored AS (  -- the batch's messages stored before it, and their numbers
  -- A join on the whole key, not a LATERAL probe, which Citus refuses beside unnest(). The list of
  -- the batch's groups (AppendOptions.pruneByGroups) lets the planner (and Citus) prune to their
  -- partitions (shards) before it runs: the rows of a join alone name no partition until they
  -- are read. The planner probes the index once per message (append-plan.test.ts).
  SELECT DISTINCT m.conversation_id AS c, m.message_id AS mid, m.seq
  FROM input i JOIN messages m ON m.conversation_id = i.c AND m.message_id = i.mid AND m.group_key = i.g
  ${pruneByGroups ? 'WHERE m.group_key = ANY ($14::text[])' : ''}
),
fresh AS (   -- the first copy of each message that is not stored yet
  SELECT DISTINCT ON (i.c, i.mid) i.* FROM input i
  LEFT JOIN stored s ON s.c = i.c AND s.mid = i.mid
  WHERE s.c IS NULL
  ORDER BY i.c, i.mid, i.ord
),
counts AS (  -- a join, not a count per conversation over all of fresh: that was 40 ms for 1,500 messages
  SELECT i.c, i.src, i.g, COALESCE(f.n, 0) AS n
  FROM (SELECT c, min(src) AS src, min(g) AS g FROM input GROUP BY c) i
  LEFT JOIN (SELECT c, count(*) AS n FROM fresh GROUP BY c) f ON f.c = i.c
),
bumped AS (  -- locks each conversation (id order) and reserves n numbers
  INSERT INTO conversations AS cv (id, source_api, next_seq, group_key)
  SELECT c, src, n, g FROM counts ORDER BY c
  ON CONFLICT (id, group_key) DO UPDATE SET next_seq = cv.next_seq + EXCLUDED.next_seq, updated_at = $13::timestamptz
  RETURNING cv.id, cv.next_seq, cv.group_key
),
numbered AS (
  SELECT f.*, b.group_key AS cg, b.next_seq - k.n + row_number() OVER (PARTITION BY f.c ORDER BY f.ord) - 1 AS seq
  FROM fresh f JOIN bumped b ON b.id = f.c JOIN counts k ON k.c = f.c
),
inserted AS (
  INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content,
                        created_at, stored_at, refer_list, metadata, source_api, group_key)
  SELECT c, seq, mid, sid, sname, role, content, created, now(), refs::jsonb, meta::jsonb, src, cg FROM numbered
  RETURNING id, conversation_id, message_id, seq, stored_at, sender_id, created_at, audience, group_key
),
${insertSearchRowsSql(
  'searchable', // keyword side only; no vector yet
  'message',
  `SELECT i.group_key, 'message', i.id::text, i.conversation_id, i.sender_id, n.body, i.created_at, ARRAY[i.message_id],
         ${keywordVectorSql('n.body')}, i.audience
  FROM inserted i JOIN numbered n ON n.c = i.conversation_id AND n.mid = i.message_id
  WHERE n.body IS NOT NULL`,
)},
${recordOutcomesSql(
  'outcomes',
  `-- a duplicate's number: the copy stored earlier in this batch, or before it
  SELECT i.rid, 'message', 'stored', i.c, i.mid, n.ord IS NULL,
         jsonb_build_object('sequence', COALESCE(n.seq, first.seq, s.seq)),
         b.group_key
  FROM input i
  JOIN bumped b ON b.id = i.c  -- every conversation of the batch is there
  LEFT JOIN numbered n ON n.ord = i.ord
  LEFT JOIN numbered first ON first.c = i.c AND first.mid = i.mid
  LEFT JOIN stored s ON s.c = i.c AND s.mid = i.mid
  WHERE i.rid IS NOT NULL`,
)}
SELECT 'm' AS kind, conversation_id, message_id, seq, stored_at FROM inserted
UNION ALL
SELECT 'o', NULL, request_id, NULL, NULL FROM outcomes`;
}

/** The append statement, for large batches and (GENERIC_PLAN) for small ones: each exported for the tests of its plan. */
export const APPEND_PRUNED = { large: appendSql(true), small: `${GENERIC_PLAN}${appendSql(true)}` } as const;
export const APPEND_UNPRUNED = { large: appendSql(false), small: `${GENERIC_PLAN}${appendSql(false)}` } as const;

export async function findMessage(
  q: Queryable,
  conversationId: string,
  messageId: string,
): Promise<CanonicalMessage | undefined> {
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE conversation_id = $1 AND message_id = $2`,
    [conversationId, messageId],
  );
  return rows[0] ? toCanonical(rows[0]) : undefined;
}

/**
 * Messages of a conversation with fromSeq <= seq <= toSeq, in order; with `audiences`, only those
 * a reader with them may see (see audienceIn).
 */
export async function messagesInRange(
  q: Queryable,
  conversationId: string,
  fromSeq: number,
  toSeq: number,
  audiences?: readonly string[] | undefined,
): Promise<CanonicalMessage[]> {
  const params: unknown[] = [conversationId, fromSeq, toSeq];
  const shown = audiences === undefined ? '' : `AND ${audienceIn('audience', params, audiences)}`;
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE conversation_id = $1 AND seq BETWEEN $2 AND $3 ${shown} ORDER BY seq`,
    params,
  );
  return rows.map(toCanonical);
}

/** The conversation's last sequence number, or undefined when it does not exist. */
export async function lastSequence(q: Queryable, conversationId: string): Promise<number | undefined> {
  const { rows } = await q.query<{ next_seq: number }>('SELECT next_seq FROM conversations WHERE id = $1', [
    conversationId,
  ]);
  return rows[0] ? rows[0].next_seq - 1 : undefined;
}

export interface ListMessagesQuery {
  readonly conversationId?: string | undefined;
  /** The conversation's group, when the caller knows it: the read then stays on one shard. */
  readonly groupKey?: string | undefined;
  /** A person's id: only conversations they may read (see visibleTo). Unset: every conversation. */
  readonly visibleTo?: string | undefined;
  /** Agent-only content the reader may see (see audienceIn). Unset: all of it. */
  readonly audiences?: readonly string[] | undefined;
  readonly senderId?: string | undefined;
  /** Messages written within [from, to] (their create_time). */
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly order: 'oldest-first' | 'newest-first';
}

export async function listMessages(
  q: Queryable,
  query: ListMessagesQuery,
): Promise<{ items: CanonicalMessage[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.conversationId !== undefined) {
    params.push(query.conversationId);
    where.push(`conversation_id = $${params.length}`);
  }
  if (query.groupKey !== undefined) where.push(`group_key = $${params.push(query.groupKey)}`);
  if (query.senderId !== undefined) {
    params.push(query.senderId);
    where.push(`sender_id = $${params.length}`);
  }
  if (query.from !== undefined) where.push(`created_at >= $${params.push(query.from.toISOString())}`);
  if (query.to !== undefined) where.push(`created_at <= $${params.push(query.to.toISOString())}`);
  if (query.visibleTo !== undefined) where.push(visibleTo('conversation_id', params, query.visibleTo));
  if (query.audiences !== undefined) where.push(audienceIn('audience', params, query.audiences));
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const direction = query.order === 'newest-first' ? 'DESC' : 'ASC';
  const total = await q.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM messages ${filter}`, params);
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages ${filter}
     ORDER BY created_at ${direction}, conversation_id ${direction}, seq ${direction}
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, query.limit, query.offset],
  );
  return { items: rows.map(toCanonical), total: total.rows[0]?.n ?? 0 };
}

export interface PendingQuery {
  /** The conversation's group, when the caller knows it: the read then stays on one shard. */
  readonly groupKey?: string | undefined;
  /** Agent-only content the reader may see (see audienceIn). Unset: all of it. */
  readonly audiences?: readonly string[] | undefined;
  readonly senderId?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly limit: number;
}

/**
 * A conversation's stored messages that no episode holds yet (its open span), oldest first: what
 * search returns beside its hits, so a message is findable before its episode closes.
 */
export async function pendingMessages(
  q: Queryable,
  conversationId: string,
  query: PendingQuery,
): Promise<CanonicalMessage[]> {
  const params: unknown[] = [conversationId, query.limit];
  const group = query.groupKey === undefined ? undefined : `$${params.push(query.groupKey)}`;
  const inGroup = group === undefined ? '' : ` AND group_key = ${group}`;
  const where = [`conversation_id = $1${inGroup}`, `seq > ${lastEpisodeEnd('$1', group)}`];
  if (query.senderId !== undefined) where.push(`sender_id = $${params.push(query.senderId)}`);
  if (query.from !== undefined) where.push(`created_at >= $${params.push(query.from.toISOString())}`);
  if (query.to !== undefined) where.push(`created_at <= $${params.push(query.to.toISOString())}`);
  if (query.audiences !== undefined) where.push(audienceIn('audience', params, query.audiences));
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $2`,
    params,
  );
  return rows.map(toCanonical);
}

/** Messages of a conversation by id, in sequence order (the source of an episode). */
export async function messagesByIds(
  q: Queryable,
  conversationId: string,
  messageIds: readonly string[],
): Promise<CanonicalMessage[]> {
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE conversation_id = $1 AND message_id = ANY($2::text[]) ORDER BY seq`,
    [conversationId, [...messageIds]],
  );
  return rows.map(toCanonical);
}

function toCanonical(row: MessageRow): CanonicalMessage {
  return {
    conversation_id: row.conversation_id,
    seq: row.seq,
    message_id: row.message_id,
    sender_id: row.sender_id,
    sender_name: row.sender_name,
    role: row.role,
    content: row.content,
    created_at: row.created_at.toISOString(),
    stored_at: row.stored_at.toISOString(),
    refer_list: row.refer_list,
    metadata: row.metadata,
    source_api: row.source_api,
  };
}

function keyOf(conversationId: string, messageId: string): string {
  return `${conversationId}\u0000${messageId}`;
}
