import type { Queryable } from '@memstream/store';

export { type TableFacts, tableFacts } from '@memstream/store';

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
