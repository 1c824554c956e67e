import type { MemoryServiceChannel, MemoryServiceMessage } from '@memstream/schemas';
import type { Queryable } from '../../store.js';
import { audienceIn } from '../memberships/conversation-access.js';

/**
 * What a conversation shows: a run of its ancestors' messages up to each fork point, then its own.
 * A segment is one conversation's messages up to `maxSeq` (null: all of them).
 */
export interface ViewSegment {
  readonly conversationId: string;
  readonly maxSeq: number | null;
  /** The group of the conversation and its ancestors (one, forks share their root's): the shard key. */
  readonly groupKey: string;
}

interface ChainRow {
  id: string;
  fork_source_conversation_id: string | null;
  fork_source_seq: number | null;
  forked: boolean;
}

/** Forks of forks are followed this deep at most; a deeper chain is cut (no cycle can be made, this is a guard). */
const MAX_FORK_DEPTH = 256;

/**
 * The segments of a conversation's view, root first. The group is read first: the walk up the
 * forks then names it, which keeps it on one shard (Citus runs a recursive CTE only with a filter
 * on the shard column) and lets the reads of the view name it too. Two conversations hold one id
 * only when another family wrote to a fork's id (docs/store.md); the fork is the one a view means.
 */
export async function viewSegments(q: Queryable, conversationId: string): Promise<ViewSegment[]> {
  const group = await q.query<{ group_key: string }>(
    'SELECT group_key FROM conversations WHERE id = $1 ORDER BY group_key = id LIMIT 1',
    [conversationId],
  );
  const groupKey = group.rows[0]?.group_key;
  if (groupKey === undefined) return [];
  const { rows } = await q.query<ChainRow>(
    `WITH RECURSIVE chain AS (
       SELECT id, forked_at_conversation_id AS parent, fork_source_conversation_id, fork_source_seq, 0 AS depth
       FROM conversations WHERE id = $1 AND group_key = $2
       UNION ALL
       SELECT p.id, p.forked_at_conversation_id, p.fork_source_conversation_id, p.fork_source_seq, ch.depth + 1
       FROM conversations p JOIN chain ch ON p.id = ch.parent
       WHERE p.group_key = $2 AND ch.depth < ${MAX_FORK_DEPTH}
     )
     SELECT id, fork_source_conversation_id, fork_source_seq::int8 AS fork_source_seq, parent IS NOT NULL AS forked
     FROM chain ORDER BY depth DESC`,
    [conversationId, groupKey],
  );
  let segments: ViewSegment[] = [];
  for (const row of rows) {
    if (row.forked)
      segments = truncate(
        segments,
        row.fork_source_conversation_id,
        row.fork_source_seq === null ? null : Number(row.fork_source_seq),
      );
    segments.push({ conversationId: row.id, maxSeq: null, groupKey });
  }
  return segments;
}

function truncate(segments: ViewSegment[], conversationId: string | null, seq: number | null): ViewSegment[] {
  if (conversationId === null || seq === null) return [];
  const at = segments.findIndex((s) => s.conversationId === conversationId);
  if (at < 0) return [];
  const cut = segments[at]!;
  return [
    ...segments.slice(0, at),
    { conversationId, maxSeq: cut.maxSeq === null ? seq : Math.min(cut.maxSeq, seq), groupKey: cut.groupKey },
  ];
}

/** A stored memory-service message with its place in the conversation. */
export interface MemoryServiceStoredMessage {
  readonly conversation_id: string;
  readonly seq: number;
  readonly message_id: string;
  readonly content_text: string;
  readonly created_at: Date;
  readonly ms: MemoryServiceMessage;
}

export interface ViewFilter {
  /** Unset: every channel (the admin API's view). */
  readonly channel?: MemoryServiceChannel | undefined;
  /** The people's view: messages only agents may see are left out. */
  readonly hideAgentOnly: boolean;
  /** Memory-channel messages belong to one agent client. */
  readonly clientId?: string | undefined;
  /** For the memory channel: 'latest' (the client's newest epoch), 'all', or one epoch. */
  readonly epoch?: 'latest' | 'all' | number | undefined;
  /** Only what these audiences may read (audiencesOf): an agent reads every channel but other agents' memory. */
  readonly audiences?: readonly string[] | undefined;
}

/** A message's position in a view, for cursors and fork points. */
export interface ViewPosition {
  readonly segment: number;
  readonly seq: number;
}

/** Where the message is in the view, or undefined when the view does not show it. */
export async function findInView(
  q: Queryable,
  segments: readonly ViewSegment[],
  messageId: string,
): Promise<(ViewPosition & MemoryServiceStoredMessage) | undefined> {
  const params: unknown[] = [messageId];
  const { rows } = await q.query<MemoryServiceRow>(
    `SELECT ${MEMORY_SERVICE_COLUMNS}, ${positionSql(segments, params)} AS segment FROM messages WHERE message_id = $1 AND ${inViewSql(segments, params)}`,
    params,
  );
  const row = rows[0];
  return row ? { ...toMs(row), segment: row.segment, seq: Number(row.seq) } : undefined;
}

/** The message just before a position in the view, any channel, or undefined at the start. */
export async function messageBefore(
  q: Queryable,
  segments: readonly ViewSegment[],
  at: ViewPosition,
): Promise<MemoryServiceStoredMessage | undefined> {
  const params: unknown[] = [];
  const position = positionSql(segments, params);
  const { rows } = await q.query<MemoryServiceRow>(
    `SELECT ${MEMORY_SERVICE_COLUMNS} FROM messages WHERE ${inViewSql(segments, params)} AND (${position}, seq) < ($${params.push(at.segment)}::int, $${params.push(at.seq)}::int8)
     ORDER BY ${position} DESC, seq DESC LIMIT 1`,
    params,
  );
  return rows[0] ? toMs(rows[0]) : undefined;
}

/** A page of the view in order, after a position; `limit + 1` are read to know whether more follow. */
export async function listView(
  q: Queryable,
  segments: readonly ViewSegment[],
  filter: ViewFilter,
  page: { after?: ViewPosition | undefined; limit: number },
): Promise<{ items: MemoryServiceStoredMessage[]; more: boolean }> {
  if (segments.length === 0) return { items: [], more: false };
  const params: unknown[] = [];
  const position = positionSql(segments, params);
  const where = [inViewSql(segments, params)];
  if (filter.channel !== undefined)
    where.push(`COALESCE(metadata->'ms'->>'channel', 'history') = $${params.push(filter.channel)}`);
  if (filter.audiences !== undefined) where.push(audienceIn('audience', params, filter.audiences));
  if (filter.hideAgentOnly) where.push(`COALESCE(metadata->'ms'->>'visibility', 'user') <> 'agent'`);
  if (filter.clientId !== undefined) where.push(`metadata->'ms'->>'client_id' = $${params.push(filter.clientId)}`);
  if (typeof filter.epoch === 'number') where.push(`(metadata->'ms'->>'epoch')::int8 = $${params.push(filter.epoch)}`);
  if (filter.epoch === 'latest') {
    const scope = [...where];
    where.push(
      `(metadata->'ms'->>'epoch')::int8 IS NOT DISTINCT FROM (SELECT max((metadata->'ms'->>'epoch')::int8) FROM messages WHERE ${scope.join(' AND ')})`,
    );
  }
  if (page.after)
    where.push(
      `(${position}, seq) > ($${params.push(page.after.segment)}::int, $${params.push(page.after.seq)}::int8)`,
    );
  const { rows } = await q.query<MemoryServiceRow>(
    `SELECT ${MEMORY_SERVICE_COLUMNS} FROM messages WHERE ${where.join(' AND ')} ORDER BY ${position}, seq LIMIT $${params.push(page.limit + 1)}`,
    params,
  );
  return { items: rows.slice(0, page.limit).map(toMs), more: rows.length > page.limit };
}

function inViewSql(segments: readonly ViewSegment[], params: unknown[]): string {
  if (segments.length === 0) return 'false';
  // every segment is of one group (forks share their root's): named, the read is one shard's
  return `group_key = $${params.push(segments[0]!.groupKey)} AND (${segments
    .map(
      (s) =>
        `(conversation_id = $${params.push(s.conversationId)}${s.maxSeq === null ? '' : ` AND seq <= $${params.push(s.maxSeq)}`})`,
    )
    .join(' OR ')})`;
}

function positionSql(segments: readonly ViewSegment[], params: unknown[]): string {
  return `array_position($${params.push(segments.map((s) => s.conversationId))}::text[], conversation_id)`;
}

/**
 * Messages by conversation and id, in no particular order; those not found, or of a deleted
 * conversation (unless `includeDeleted`: the admin API), are left out. The conversation is probed
 * by the message's group as well as its id: its shard column, as Citus joins.
 */
export async function memoryServiceMessagesByKeys(
  q: Queryable,
  keys: ReadonlyArray<{ conversationId: string; messageId: string }>,
  includeDeleted = false,
): Promise<MemoryServiceStoredMessage[]> {
  if (keys.length === 0) return [];
  const { rows } = await q.query<MemoryServiceRow>(
    `SELECT ${MEMORY_SERVICE_COLUMNS} FROM messages m JOIN unnest($1::text[], $2::text[]) AS k(c, id) ON m.conversation_id = k.c AND m.message_id = k.id
     ${includeDeleted ? '' : 'WHERE NOT EXISTS (SELECT 1 FROM conversations d WHERE d.group_key = m.group_key AND d.id = m.conversation_id AND d.deleted_at IS NOT NULL)'}`,
    [keys.map((k) => k.conversationId), keys.map((k) => k.messageId)],
  );
  return rows.map(toMs);
}

interface MemoryServiceRow {
  conversation_id: string;
  seq: number | string;
  message_id: string;
  content: string;
  created_at: Date;
  metadata: Record<string, unknown>;
  segment: number;
}

const MEMORY_SERVICE_COLUMNS = 'conversation_id, seq, message_id, content, created_at, metadata';

function toMs(row: MemoryServiceRow): MemoryServiceStoredMessage {
  return {
    conversation_id: row.conversation_id,
    seq: Number(row.seq),
    message_id: row.message_id,
    content_text: row.content,
    created_at: row.created_at,
    ms: (row.metadata['ms'] ?? legacyMs(row)) as MemoryServiceMessage,
  };
}

/** A message written through another family, as memory-service clients see it: one text block. */
function legacyMs(row: MemoryServiceRow): MemoryServiceMessage {
  return {
    message_id: row.message_id,
    role: 'user',
    visibility: 'user',
    channel: 'history',
    client_id: null,
    user_id: null,
    epoch: null,
    content: [{ type: 'text', text: row.content }],
    metadata: {},
    parent_message_id: null,
    created_at: row.created_at.toISOString(),
  };
}
