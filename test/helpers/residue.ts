import type { Queryable } from '@memstream/store';

/** A store or a plain pg client. */
type Reader = Pick<Queryable, 'query'>;

/** Where a needle was found: the table and how many of its rows hold it. */
export interface Residue {
  readonly table: string;
  readonly needle: string;
  readonly rows: number;
  /** The first few such rows as text, cut short: what a failure needs to say which writer left them. */
  readonly sample: string[];
}

/**
 * Every table of the schema (the ones a test did not think of included) searched for each needle:
 * each row as text (every column, jsonb, arrays and tsvector lexemes with it) and each bytea column
 * (the bus journal's payloads) as bytes. `skip` names tables that may keep a needle by design.
 */
export async function residueOf(
  q: Reader,
  needles: readonly string[],
  skip: readonly string[] = [],
): Promise<Residue[]> {
  const { rows: tables } = await q.query<{ table_name: string; bytea: string[] | null }>(
    `SELECT t.table_name,
            (SELECT array_agg(c.column_name::text) FROM information_schema.columns c
              WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.data_type = 'bytea') AS bytea
     FROM information_schema.tables t WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
     ORDER BY t.table_name`,
  );
  const found: Residue[] = [];
  for (const { table_name: table, bytea } of tables) {
    if (skip.includes(table)) continue;
    for (const needle of needles) {
      const conditions = [`position(lower($1) in lower(x::text)) > 0`];
      for (const column of bytea ?? []) conditions.push(`position(convert_to($1, 'UTF8') in x."${column}") > 0`);
      const { rows } = await q.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${table}" x WHERE ${conditions.join(' OR ')}`,
        [needle],
      );
      const n = Number(rows[0]!.n);
      if (n === 0) continue;
      const { rows: sample } = await q.query<{ row: string }>(
        `SELECT left(x::text, 240) AS row FROM "${table}" x WHERE ${conditions.join(' OR ')} LIMIT 3`,
        [needle],
      );
      found.push({ table, needle, rows: n, sample: sample.map((r) => r.row) });
    }
  }
  return found;
}

/** How many tables the schema has, to show a scan looked at all of them. */
export async function tableCount(q: Reader): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  return Number(rows[0]!.n);
}
