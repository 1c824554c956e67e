import { AppError } from '@memstream/errors';
import type { Queryable } from '../store.js';
import type { ImportContext, ImportNeeds, StoredPer } from './table-import.js';

/*
 * The builders every table's import part writes its statements with (tables/<folder>/import.ts).
 * They name no table: a statement's table is handed to them as a value.
 */

/** The rows of a batch, as one jsonb parameter unpacked by jsonb_to_recordset. */
export const rows = (columns: string) => `jsonb_to_recordset($1::jsonb) AS r(${columns})`;

/**
 * The statement that stores a batch into `table`: `columns` lists each column with its SQL type as
 * a table definition does, and each takes the record's field of its name in camelCase (`group_id`
 * from `groupId`) unless `fields` names another; `select` turns a field into the column's value,
 * `values` gives a value no field carries, `where` keeps only the rows it holds for. A row
 * whose key is already stored is skipped. The batch is `input` (aliased `r` in the insert) for
 * `after`, more statements on what the insert `returning` gave (as `ins`); `before`, statements the
 * insert's `where` may read; `extra` declares fields no column takes, for them. `owner` is the
 * column naming the conversation (or group) a row belongs to: the statement answers how many it
 * stored of each (`owner`, `n`), and, with `created`, the group of each (`created_group`, an
 * expression over what the insert returned) for the import's scope.
 */
export function insertSql(
  table: string,
  columns: string,
  owner: string,
  o: {
    fields?: Record<string, string>;
    select?: Record<string, (field: string) => string>;
    values?: Record<string, string>;
    extra?: string;
    returning?: string;
    where?: string;
    order?: string;
    before?: string;
    after?: string;
    created?: string;
  } = {},
): string {
  const typed = columns.split(',').map((c) => c.trim().split(/\s+/) as [string, string]);
  const fieldOf = (column: string) =>
    o.fields?.[column] ?? column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const declared = typed.map(([column, type]) => `"${fieldOf(column)}" ${type}`);
  const selected = typed.map(([column]) => o.select?.[column]?.(`r."${fieldOf(column)}"`) ?? `r."${fieldOf(column)}"`);
  const names = [...typed.map(([column]) => column), ...Object.keys(o.values ?? {})];
  return `WITH input AS (SELECT * FROM ${rows([...declared, ...(o.extra ? [o.extra] : [])].join(', '))}),${o.before ? `\n     ${o.before},` : ''}
     ins AS (
       INSERT INTO ${table} (${names.join(', ')})
       SELECT ${[...selected, ...Object.values(o.values ?? {})].join(', ')} FROM input r ${o.where ? `WHERE ${o.where}` : ''} ${o.order ? `ORDER BY ${o.order}` : ''}
       ON CONFLICT DO NOTHING RETURNING ${owner} AS import_owner${o.returning ? `, ${o.returning}` : ''})${o.after ? `,\n     ${o.after}` : ''}
     SELECT import_owner AS owner, count(*)::int AS n${o.created ? `, min(${o.created}) AS created_group` : ''}
       FROM ins GROUP BY import_owner`;
}

/** A JSON array of strings as the text[] it is stored as. */
export const textArray = (field: string) => `ARRAY(SELECT jsonb_array_elements_text(${field}))`;

/**
 * Skips a row whose id is stored in another group. The key is (group_id, id) since migration 0035
 * (0038: (id, group_key)), a key Citus can hold, so ON CONFLICT no longer catches an id taken
 * elsewhere, as it did. The record's `idTaken` is read first (withIdsTaken).
 */
export const ID_TAKEN = { extra: '"idTaken" boolean', where: 'NOT r."idTaken"' };

/** Of `ids`, those `sql` finds: it selects `id`, given the ids (each once) as `$1::text[]`. */
export async function idsFound(q: Queryable, sql: string, ids: readonly string[]): Promise<string[]> {
  const { rows: found } = await q.query<{ id: string }>(sql, [[...new Set(ids)]]);
  return found.map((r) => r.id);
}

/** Each record with `idTaken`: its id is stored in `table` already (in its group or another). */
export async function withIdsTaken<R extends { id: string }>(q: Queryable, table: string, records: readonly R[]) {
  const ids = records.map((r) => r.id);
  const taken = new Set(await idsFound(q, `SELECT id FROM ${table} WHERE id = ANY($1::text[])`, ids));
  return records.map((r) => ({ ...r, idTaken: taken.has(r.id) }));
}

/** A record of a conversation: counted under it, stored when the import created it. */
export const inConversation = (r: { conversationId: string }): ImportNeeds => ({
  owner: r.conversationId,
  conversations: [r.conversationId],
  groups: [],
});
/** A record of a group: counted under it, stored when the import created it. */
export const inGroup = (r: { groupId: string }): ImportNeeds => ({
  owner: r.groupId,
  conversations: [],
  groups: [r.groupId],
});

/** Runs a batch's statement: how many records it stored, per owner. */
export async function inserted(q: Queryable, sql: string, records: readonly object[]): Promise<StoredPer> {
  const { rows: result } = await q.query<{ owner: string; n: number }>(sql, [JSON.stringify(records)]);
  return new Map(result.map((r) => [r.owner, Number(r.n)]));
}

/**
 * `inserted` for a statement that creates what the import may then write to (a conversation, an
 * ARK stream alone): `known` is its second parameter, what the scope holds that it reads, and what it
 * created is noted in the scope.
 */
export async function insertedCreating(
  q: Queryable,
  sql: string,
  records: readonly object[],
  scope: ImportContext,
  known: readonly string[],
): Promise<StoredPer> {
  const { rows: result } = await q.query<{ owner: string; n: number; created_group: string }>(sql, [
    JSON.stringify(records),
    known,
  ]);
  scope.note(result.map((r) => ({ id: r.owner, group: r.created_group })));
  return new Map(result.map((r) => [r.owner, Number(r.n)]));
}

/**
 * Refuses the import when a record's server-made id (`key`, default `id`) is already another row's
 * of `table`: a stored row under that id is the record's own only when `sameRow` holds, written
 * against the stored row `x` and the record `r` (the same export again). `columns` declares the
 * record's fields the check reads.
 */
export function refuseIdsTakenElsewhere(
  q: Queryable,
  records: readonly object[],
  o: {
    readonly what: string;
    readonly table: string;
    readonly key?: string;
    readonly columns: string;
    readonly sameRow: string;
  },
): Promise<void> {
  const key = `x.${o.key ?? 'id'}`;
  return refuseTakenIds(
    q,
    `SELECT ${key} AS id FROM ${rows(o.columns)}
       JOIN ${o.table} x ON ${key} = r.id WHERE NOT (${o.sameRow}) LIMIT 1`,
    records,
    o.what,
  );
}

/** Refuses a batch whose server-made id the target already uses for another row: an import into a server that has data of its own. */
export async function refuseTakenIds(
  q: Queryable,
  sql: string,
  records: readonly object[],
  what: string,
): Promise<void> {
  const { rows: taken } = await q.query<{ id: string }>(sql, [JSON.stringify(records)]);
  if (taken.length > 0)
    throw new AppError('CONFLICT', `${what} id ${taken[0]!.id} is already another ${what} on this server`, {
      details: { resource: what, id: String(taken[0]!.id) },
    });
}
