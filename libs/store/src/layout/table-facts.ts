import type { Queryable } from '../store.js';

/**
 * What a layout (and the registry and SQL-rule tests) needs to know of the schema's tables, read
 * from its catalog: partitions are left out, a partitioned table stands for them.
 */
export interface TableFacts {
  readonly name: string;
  /** column name to whether it is NOT NULL */
  readonly columns: ReadonlyMap<string, boolean>;
  /** primary keys, unique constraints and unique indexes: name and columns (none for an expression) */
  readonly uniqueKeys: readonly { name: string; columns: readonly string[] }[];
  readonly foreignKeys: readonly {
    name: string;
    columns: readonly string[];
    target: string;
    targetColumns: readonly string[];
  }[];
  readonly triggers: readonly string[];
}

export async function tableFacts(q: Queryable): Promise<Map<string, TableFacts>> {
  const { rows } = await q.query<{
    name: string;
    columns: { name: string; not_null: boolean }[];
    unique_keys: { name: string; columns: string[] }[];
    foreign_keys: { name: string; columns: string[]; target: string; target_columns: string[] }[];
    triggers: string[];
  }>(`SELECT c.relname AS name,
      (SELECT json_agg(json_build_object('name', a.attname, 'not_null', a.attnotnull) ORDER BY a.attnum)
         FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
      (SELECT COALESCE(json_agg(json_build_object('name', i.indexrelid::regclass::text, 'columns',
                (SELECT COALESCE(json_agg(a.attname ORDER BY k.ord), '[]'::json)
                   FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum))
              ORDER BY i.indexrelid::regclass::text), '[]'::json)
         FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique) AS unique_keys,
      (SELECT COALESCE(json_agg(json_build_object('name', f.conname, 'target', f.confrelid::regclass::text,
                'columns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(f.conkey) WITH ORDINALITY AS k(attnum, ord)
                              JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum),
                'target_columns', (SELECT json_agg(a.attname ORDER BY k.ord) FROM unnest(f.confkey) WITH ORDINALITY AS k(attnum, ord)
                              JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.attnum))
              ORDER BY f.conname), '[]'::json)
         FROM pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f' AND f.conparentid = 0) AS foreign_keys,
      (SELECT COALESCE(json_agg(t.tgname ORDER BY t.tgname), '[]'::json)
         FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal) AS triggers
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
   ORDER BY c.relname`);
  return new Map(
    rows.map((r) => [
      r.name,
      {
        name: r.name,
        columns: new Map(r.columns.map((c) => [c.name, c.not_null])),
        uniqueKeys: r.unique_keys,
        foreignKeys: r.foreign_keys.map((f) => ({ ...f, targetColumns: f.target_columns })),
        triggers: r.triggers,
      },
    ]),
  );
}
