import type { ExportDataRecord } from '@memstream/schemas';
import { readDistribution } from '../distribution.js';
import type { Queryable } from '../store.js';
import type { LifecycleParticipant } from '../participant/participant.js';
import { namedSql, personGroupsSql, wholeSql } from './person-rows.js';
import { PARTICIPANTS } from './registry.js';
import { conversationDeletedIn } from '../tables/conversations/conversation-sql.js';

/**
 * What an export holds. The server: everything. A person: what erasing them removes or
 * de-identifies, table by table, as the lifecycle registry says (participant/participant.ts): their
 * conversation groups whole, and elsewhere the rows that are theirs or name them (messages they
 * sent, member or not, their memberships, memories kept for them...), with the conversations those
 * sit in named but not described. `asPerson` is the person asking for their own data: they get
 * what they may read, so no soft-deleted conversation, no message kept for agents only, and no
 * KAOS session nobody owns (which only its agent reads).
 */
export type ExportScope = { readonly kind: 'server' } | { readonly kind: 'person'; userId: string; asPerson: boolean };

/** One kind's query: its select (ending in a WHERE), its key in order, and how a row names its key. */
interface KindQuery {
  readonly select: string;
  readonly params: unknown[];
  readonly keys: readonly string[];
  readonly keyOf: (row: Record<string, unknown>) => unknown[];
}

/**
 * The records of the scope, a batch at a time, in the order an import needs them: each kind is
 * read by keyset pages (never all at once), a kind after the kinds it refers to.
 */
export async function* exportRecords(
  q: Queryable,
  scope: ExportScope,
  batch = 500,
): AsyncGenerator<ExportDataRecord[], void, undefined> {
  const distribution = await readDistribution(q);
  const shardOf = (table: string) => distribution.get(table)?.shardColumn ?? 'group_key';
  for (const kind of kindQueries(scope, shardOf)) {
    let cursor: unknown[] | undefined;
    for (;;) {
      const params = [...kind.params];
      const after = cursor
        ? ` AND (${kind.keys.join(', ')}) > (${cursor.map((v) => `$${params.push(v)}`).join(', ')})`
        : '';
      const { rows } = await q.query<Record<string, unknown>>(
        `${kind.select}${after} ORDER BY ${kind.keys.join(', ')} LIMIT ${batch}`,
        params,
      );
      if (rows.length === 0) break;
      yield rows.flatMap(recordsOf) as ExportDataRecord[];
      if (rows.length < batch) break;
      cursor = kind.keyOf(rows.at(-1)!);
    }
  }
}

/** A conversation row carries its fork, which is its own record right after it. */
function recordsOf(row: Record<string, unknown>): Record<string, unknown>[] {
  if (row['kind'] !== 'conversation') return [row];
  const { fork, ...conversation } = row as Record<string, unknown> & { fork: Record<string, unknown> | null };
  return fork ? [conversation, { kind: 'fork', conversationId: conversation['id'], ...fork }] : [conversation];
}

/**
 * Each exported table's query, limited to the scope: for a person, the rows the lifecycle registry
 * says are theirs (the same the erasure removes), and the rows those need on import, named only.
 */
function kindQueries(scope: ExportScope, shardOf: ShardOf): KindQuery[] {
  return PARTICIPANTS.flatMap((p) => {
    if (!p.export) return [];
    const { kind, columns, only, readable, keys, keyOf } = p.export;
    const conditions = only ? [only] : [];
    let params: unknown[] = [];
    let whole = 'true';
    if (scope.kind === 'person') {
      params = [scope.userId];
      whole = wholeSql(p, personGroupsSql('$1', { readable: scope.asPerson }));
      conditions.push(`(${whole} OR ${namedSql(p, '$1')} OR ${neededSql(p, '$1', scope.asPerson, shardOf)})`);
      if (scope.asPerson) conditions.push(...readableSql(p, readable, shardOf));
    }
    const where = conditions.length > 0 ? conditions.join(' AND ') : 'true';
    const person = scope.kind === 'person' ? '$1' : undefined;
    return [
      {
        select: `SELECT '${kind}' AS kind, ${columns({ whole, person })} FROM ${p.table} WHERE ${where}`,
        params,
        keys,
        keyOf,
      },
    ];
  });
}

/**
 * The rows of `p` that other tables' named rows need on import: a conversation is named for every
 * row in it (or in its group), a parent row for the rows that refer to it.
 */
function neededSql(p: LifecycleParticipant, person: string, asPerson: boolean, shardOf: ShardOf): string {
  const needed: string[] = [];
  for (const child of PARTICIPANTS) {
    if (!child.named || !child.export) continue;
    const readable = asPerson ? readableSql(child, child.export.readable, shardOf) : [];
    const rows = (column: string) =>
      `SELECT ${child.table}.${column} FROM ${child.table} WHERE ${[namedSql(child, person), ...readable].join(' AND ')}`;
    if (child.needs?.table === p.table) needed.push(`${p.table}.${child.needs.column} IN (${rows(child.needs.by)})`);
    if (!p.root || child.within === 'nowhere') continue;
    // p is the root (conversations): its own id and its shard column, the group
    if ('group' in child.within) needed.push(`${p.table}.${shardOf(p.table)} IN (${rows(child.within.group)})`);
    else
      needed.push(
        `${p.table}.id IN (${rows('conversation' in child.within ? child.within.conversation : child.within.session)})`,
      );
  }
  return needed.length > 0 ? `(${needed.join(' OR ')})` : 'false';
}

/** A table's shard column (the registry's), which holds its rows' conversation group. */
type ShardOf = (table: string) => string;

/**
 * What a person reads of `p` themself: nothing of a deleted conversation, and what the table says.
 * The conversation is found by its group too, the row's shard column, so Citus runs the subquery
 * beside the row (docs/store.md, join-without-shard-key).
 */
function readableSql(p: LifecycleParticipant, readable: string | undefined, shardOf: ShardOf): string[] {
  const out = readable ? [readable] : [];
  if (!p.root && p.within !== 'nowhere' && 'conversation' in p.within)
    out.push(`NOT ${conversationDeletedIn(`${p.table}.${shardOf(p.table)}`, `${p.table}.${p.within.conversation}`)}`);
  return out;
}
