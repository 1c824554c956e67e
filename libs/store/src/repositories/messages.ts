import type { CanonicalMessage, SourceApi, Role } from '@memstream/schemas';
import type { Queryable, Store } from '../store.js';

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
}

export interface AppendResult {
  /** True when the message was already stored (a redelivery or a resend): nothing was written. */
  readonly duplicate: boolean;
  readonly message: CanonicalMessage;
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

/**
 * Stores a message once, with the next sequence number of its conversation.
 * The conversation row is locked first (the upsert takes a row lock), so concurrent writers of
 * one conversation queue up: numbers come out in arrival order with no gaps, and a duplicate is
 * detected under the same lock instead of racing to the unique constraint.
 */
export async function appendMessage(store: Store, msg: NewMessage): Promise<AppendResult> {
  return store.transaction(async (tx) => {
    const conv = await tx.query<{ next_seq: number }>(
      `INSERT INTO conversations (id, source_api) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET updated_at = now()
       RETURNING next_seq`,
      [msg.conversation_id, msg.source_api],
    );
    const existing = await findMessage(tx, msg.conversation_id, msg.message_id);
    if (existing) return { duplicate: true, message: existing };
    const seq = conv.rows[0]!.next_seq;
    const inserted = await tx.query<MessageRow>(
      `INSERT INTO messages (${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9, $10, $11)
       RETURNING ${COLUMNS}`,
      [
        msg.conversation_id,
        seq,
        msg.message_id,
        msg.sender_id,
        msg.sender_name,
        msg.role,
        msg.content,
        msg.created_at.toISOString(),
        JSON.stringify(msg.refer_list),
        JSON.stringify(msg.metadata),
        msg.source_api,
      ],
    );
    await tx.query('UPDATE conversations SET next_seq = next_seq + 1 WHERE id = $1', [msg.conversation_id]);
    return { duplicate: false, message: toCanonical(inserted.rows[0]!) };
  });
}

export async function findMessage(q: Queryable, conversationId: string, messageId: string): Promise<CanonicalMessage | undefined> {
  const { rows } = await q.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE conversation_id = $1 AND message_id = $2`,
    [conversationId, messageId],
  );
  return rows[0] ? toCanonical(rows[0]) : undefined;
}

export interface ListMessagesQuery {
  readonly conversationId?: string | undefined;
  readonly senderId?: string | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly order: 'oldest-first' | 'newest-first';
}

export async function listMessages(q: Queryable, query: ListMessagesQuery): Promise<{ items: CanonicalMessage[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.conversationId !== undefined) {
    params.push(query.conversationId);
    where.push(`conversation_id = $${params.length}`);
  }
  if (query.senderId !== undefined) {
    params.push(query.senderId);
    where.push(`sender_id = $${params.length}`);
  }
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
