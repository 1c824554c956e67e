import type { Queryable } from '@memstream/store';

/** What the registry and SQL-rule tests need to know of a migrated schema's tables, read from its catalog. */
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
         FROM pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f') AS foreign_keys,
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

/** Public functions other than trigger functions, with their bodies. */
export async function functionBodies(q: Queryable): Promise<Map<string, string>> {
  const { rows } = await q.query<{ name: string; body: string }>(
    `SELECT p.proname AS name, string_agg(p.prosrc, E'\\n') AS body
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.prorettype <> 'trigger'::regtype
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
      GROUP BY p.proname ORDER BY p.proname`,
  );
  return new Map(rows.map((r) => [r.name, r.body]));
}

/**
 * Every row of each table, whole but for `without`, in the order given per table: what a
 * migration test compares before and after, the column the migration adds left out.
 */
export async function rowsWithout(
  q: Queryable,
  orderByTable: Readonly<Record<string, string>>,
  without: string,
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(orderByTable)) {
    const { rows } = await q.query<{ r: unknown }>(
      `SELECT to_jsonb(t) - $1::text AS r FROM ${table} t ORDER BY ${order}`,
      [without],
    );
    out[table] = rows.map((row) => row.r);
  }
  return out;
}

/**
 * The unique indexes today's writers name in ON CONFLICT (migration 0038's keys), made on a schema
 * from before 0038 so that those writers can fill it as main's did; the old keys still hold. The
 * returned function drops them, leaving the schema as it was.
 */
export async function writerKeysAhead(q: Queryable): Promise<() => Promise<void>> {
  const keys = {
    ahead_conversations: 'conversations (id, group_key)',
    ahead_episodes: 'episodes (conversation_id, start_seq, group_key)',
    ahead_episodic_memories: 'episodic_memories (id, group_key)',
    ahead_memory: `memory (conversation_id, group_key) WHERE status = 'processing'`,
  };
  for (const [name, on] of Object.entries(keys)) await q.query(`CREATE UNIQUE INDEX ${name} ON ${on}`);
  return async () => {
    for (const name of Object.keys(keys)) await q.query(`DROP INDEX ${name}`);
  };
}
