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
