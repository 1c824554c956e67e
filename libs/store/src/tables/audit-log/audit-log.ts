import type { Queryable } from '../../store.js';

/** A value of an audit row's params: ids, flags and limits, or lists and records of them. */
export type AuditValue =
  | string
  | number
  | boolean
  | null
  | readonly AuditValue[]
  | { readonly [key: string]: AuditValue };

/** What an audit row says. Never content: `params` holds ids, flags and limits, `counts` numbers. */
export interface AuditEntry {
  readonly actorKind: 'user' | 'agent' | 'local' | 'system';
  readonly actorId: string;
  /** The role the call was made in; null for a caller holding none (a refused attempt). */
  readonly role: 'admin' | 'auditor' | null;
  readonly action: string;
  readonly target?: string | null | undefined;
  readonly justification?: string | null | undefined;
  /** The HTTP status the caller was answered with. */
  readonly status: number;
  readonly params?: Readonly<Record<string, AuditValue>> | undefined;
  readonly counts?: Readonly<Record<string, number>> | undefined;
}

export interface AuditRecord {
  readonly id: number;
  readonly occurred_at: Date;
  readonly actor_kind: AuditEntry['actorKind'];
  readonly actor_id: string;
  readonly role: AuditEntry['role'];
  readonly action: string;
  readonly target: string | null;
  readonly justification: string | null;
  readonly status: number;
  readonly params: Record<string, unknown>;
  readonly counts: Record<string, number>;
}

/** Appends one entry; its id. */
export async function recordAudit(q: Queryable, entry: AuditEntry): Promise<number> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO audit_log (actor_kind, actor_id, role, action, target, justification, status, params, counts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb) RETURNING id`,
    [
      entry.actorKind,
      entry.actorId,
      entry.role,
      entry.action,
      entry.target ?? null,
      entry.justification ?? null,
      entry.status,
      JSON.stringify(entry.params ?? {}),
      JSON.stringify(entry.counts ?? {}),
    ],
  );
  return Number(rows[0]!.id);
}

export interface AuditQuery {
  /** Entries after this id (the cursor), oldest first. */
  readonly after?: number | undefined;
  readonly limit: number;
  readonly actorId?: string | undefined;
  readonly action?: string | undefined;
  readonly target?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

/** A page of the log in order; `limit + 1` are read to know whether more follow. */
export async function listAudit(q: Queryable, query: AuditQuery): Promise<{ items: AuditRecord[]; more: boolean }> {
  const params: unknown[] = [];
  const where = ['true'];
  if (query.after !== undefined) where.push(`id > $${params.push(query.after)}`);
  if (query.actorId !== undefined) where.push(`actor_id = $${params.push(query.actorId)}`);
  if (query.action !== undefined) where.push(`action = $${params.push(query.action)}`);
  if (query.target !== undefined) where.push(`target = $${params.push(query.target)}`);
  if (query.since !== undefined) where.push(`occurred_at >= $${params.push(query.since)}`);
  if (query.until !== undefined) where.push(`occurred_at < $${params.push(query.until)}`);
  const { rows } = await q.query<AuditRecord & { id: string | number }>(
    `SELECT id, occurred_at, actor_kind, actor_id, role, action, target, justification, status, params, counts
     FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.push(query.limit + 1)}`,
    params,
  );
  const items = rows.slice(0, query.limit).map((r) => ({ ...r, id: Number(r.id) }));
  return { items, more: rows.length > query.limit };
}
