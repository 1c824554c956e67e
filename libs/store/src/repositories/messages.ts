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

/** Stores one message in its own transaction; see appendMessages. */
export async function appendMessage(store: Store, msg: NewMessage): Promise<AppendResult> {
  return store.transaction(async (tx) => (await appendMessages(tx, [msg]))[0]!);
}

/**
 * Stores messages once each, in the order given, with the next sequence numbers of their
 * conversations; the caller supplies the transaction. Every conversation row involved is locked
 * first, in id order (so two batches never deadlock), which makes concurrent writers of one
 * conversation queue up: numbers come out in arrival order with no gaps, and duplicates (of
 * stored rows, or twice in the batch) are found under the lock instead of racing to the unique
 * constraint. A handful of statements per call, however many messages: this is the ingest path.
 */
export async function appendMessages(tx: Queryable, msgs: readonly NewMessage[]): Promise<AppendResult[]> {
  if (msgs.length === 0) return [];
  const sourceOf = new Map<string, string>();
  for (const m of msgs) if (!sourceOf.has(m.conversation_id)) sourceOf.set(m.conversation_id, m.source_api);
  const convIds = [...sourceOf.keys()].sort();
  const locked = await tx.query<{ id: string; next_seq: number }>(
    `INSERT INTO conversations (id, source_api)
     SELECT id, source_api FROM unnest($1::text[], $2::text[]) AS c(id, source_api) ORDER BY id
     ON CONFLICT (id) DO UPDATE SET updated_at = now()
     RETURNING id, next_seq`,
    [convIds, convIds.map((id) => sourceOf.get(id)!)],
  );
  const nextSeq = new Map(locked.rows.map((r) => [r.id, r.next_seq]));

  const existing = await tx.query<MessageRow>(
    `SELECT ${COLUMNS} FROM messages
     WHERE (conversation_id, message_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [msgs.map((m) => m.conversation_id), msgs.map((m) => m.message_id)],
  );
  const known = new Map<string, CanonicalMessage | number>(
    existing.rows.map((r) => [keyOf(r.conversation_id, r.message_id), toCanonical(r)]),
  );

  // Walk in arrival order: a stored row or an earlier copy in this batch makes a duplicate.
  const fresh: Array<NewMessage & { seq: number }> = [];
  const plan: Array<{ duplicate: boolean; ref: CanonicalMessage | number }> = [];
  for (const m of msgs) {
    const key = keyOf(m.conversation_id, m.message_id);
    const seen = known.get(key);
    if (seen !== undefined) {
      plan.push({ duplicate: true, ref: seen });
      continue;
    }
    const seq = nextSeq.get(m.conversation_id)!;
    nextSeq.set(m.conversation_id, seq + 1);
    known.set(key, fresh.length);
    plan.push({ duplicate: false, ref: fresh.length });
    fresh.push({ ...m, seq });
  }

  let storedAt = new Date();
  if (fresh.length > 0) {
    const inserted = await tx.query<{ stored_at: Date }>(
      `INSERT INTO messages (${COLUMNS})
       SELECT c, s, mid, sid, sname, role, content, created, now(), refs::jsonb, meta::jsonb, src
       FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                   $8::timestamptz[], $9::text[], $10::text[], $11::text[])
         AS t(c, s, mid, sid, sname, role, content, created, refs, meta, src)
       RETURNING stored_at`,
      [
        fresh.map((m) => m.conversation_id),
        fresh.map((m) => m.seq),
        fresh.map((m) => m.message_id),
        fresh.map((m) => m.sender_id),
        fresh.map((m) => m.sender_name),
        fresh.map((m) => m.role),
        fresh.map((m) => m.content),
        fresh.map((m) => m.created_at.toISOString()),
        fresh.map((m) => JSON.stringify(m.refer_list)),
        fresh.map((m) => JSON.stringify(m.metadata)),
        fresh.map((m) => m.source_api),
      ],
    );
    storedAt = inserted.rows[0]!.stored_at; // now() is the transaction's start: one value for all
    const bumped = [...new Set(fresh.map((m) => m.conversation_id))];
    await tx.query(
      `UPDATE conversations c SET next_seq = v.next_seq
       FROM unnest($1::text[], $2::int8[]) AS v(id, next_seq) WHERE c.id = v.id`,
      [bumped, bumped.map((id) => nextSeq.get(id)!)],
    );
  }

  const stored = fresh.map((m) => toCanonical({ ...m, created_at: m.created_at, stored_at: storedAt, refer_list: [...m.refer_list], metadata: { ...m.metadata } }));
  return plan.map(({ duplicate, ref }) => ({ duplicate, message: typeof ref === 'number' ? stored[ref]! : ref }));
}

function keyOf(conversationId: string, messageId: string): string {
  return `${conversationId}\u0000${messageId}`;
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
