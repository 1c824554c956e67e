import type { Queryable } from '../store.js';

/**
 * How many hash partitions each distributed table gets. Two would already make PostgreSQL refuse
 * a key without the shard column and show a statement that strays off its group; four also makes
 * a plan that prunes to one stand apart from one that reads half the table, while keeping the
 * catalog small: every partition carries its own copy of each index (an HNSW graph included)
 * and is one more relation to plan and lock. Citus's default of 32 shards buys nothing on one
 * server.
 */
export const PARTITIONS = 4;

/** How a table is partitioned now, if it is: its strategy and key columns. */
export async function partitioningOf(
  q: Queryable,
  table: string,
): Promise<{ strategy: string; columns: string[]; partitions: number } | undefined> {
  const { rows } = await q.query<{ strategy: string; columns: string[]; partitions: number }>(
    `SELECT p.partstrat AS strategy,
            ARRAY(SELECT a.attname::text FROM unnest(p.partattrs::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = p.partrelid) AS partitions
       FROM pg_partitioned_table p WHERE p.partrelid = to_regclass($1)`,
    [`public.${table}`],
  );
  return rows[0];
}

interface TableDefinitions {
  readonly columns: string[];
  readonly options: string[] | null;
  /** the table's comment as a SQL literal */
  readonly comment: string | null;
  /** primary keys, unique and exclusion constraints, then this table's foreign keys: name and definition */
  readonly constraints: { name: string; def: string }[];
  /** indexes no constraint owns */
  readonly indexes: string[];
  /** other tables' foreign keys to this one */
  readonly referencing: { table: string; name: string; def: string }[];
  /** sequences owned by a column (serial), which would go with the old table */
  readonly sequences: { sequence: string; column: string }[];
}

/**
 * Lays `table` out hash-partitioned by `column`, as Citus's create_distributed_table converts an
 * existing table: a partitioned twin with the same columns, defaults, checks and comments, the
 * rows moved into it, the old table dropped and the twin named in its place, then every key,
 * index and foreign key (this table's and other tables' to it) made again under its old name, so
 * a later migration naming a constraint finds it. Run inside the caller's transaction: a failure
 * leaves the table as it was. A key without `column` fails here, as on Citus.
 */
export async function partitionTable(tx: Queryable, table: string, column: string): Promise<void> {
  const defs = await definitionsOf(tx, table);
  const twin = `${table}__partitioned`;
  await tx.exec(
    `CREATE TABLE ${twin} (LIKE ${table} INCLUDING ALL EXCLUDING INDEXES) PARTITION BY HASH (${quote(column)})`,
  );
  const storage = defs.options ? ` WITH (${defs.options.join(', ')})` : '';
  for (let i = 0; i < PARTITIONS; i++) {
    await tx.exec(
      `CREATE TABLE ${table}_p${i} PARTITION OF ${twin} FOR VALUES WITH (MODULUS ${PARTITIONS}, REMAINDER ${i})${storage}`,
    );
  }
  const columns = defs.columns.map(quote).join(', ');
  await tx.exec(`INSERT INTO ${twin} (${columns}) SELECT ${columns} FROM ${table}`);
  for (const fk of defs.referencing) await tx.exec(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quote(fk.name)}`);
  for (const s of defs.sequences) await tx.exec(`ALTER SEQUENCE ${s.sequence} OWNED BY ${twin}.${quote(s.column)}`);
  // no CASCADE: a view or anything else built on the table stops the layout rather than vanishing
  await tx.exec(`DROP TABLE ${table}`);
  await tx.exec(`ALTER TABLE ${twin} RENAME TO ${table}`);
  if (defs.comment !== null) await tx.exec(`COMMENT ON TABLE ${table} IS ${defs.comment}`);
  for (const c of defs.constraints) await tx.exec(`ALTER TABLE ${table} ADD CONSTRAINT ${quote(c.name)} ${c.def}`);
  for (const index of defs.indexes) await tx.exec(index);
  for (const fk of defs.referencing)
    await tx.exec(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${quote(fk.name)} ${fk.def}`);
}

async function definitionsOf(q: Queryable, table: string): Promise<TableDefinitions> {
  const { rows } = await q.query<TableDefinitions>(
    `SELECT ARRAY(SELECT a.attname::text FROM pg_attribute a
                   WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
                   ORDER BY a.attnum) AS columns,
            c.reloptions AS options,
            quote_literal(obj_description(c.oid, 'pg_class')) AS comment,
            ARRAY(SELECT json_build_object('name', k.conname, 'def', pg_get_constraintdef(k.oid))
                    FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u', 'x', 'f') AND k.conparentid = 0
                   ORDER BY k.contype = 'f', k.conname) AS constraints,
            ARRAY(SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
                   WHERE i.indrelid = c.oid
                     AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = c.oid)
                   ORDER BY i.indexrelid::regclass::text) AS indexes,
            ARRAY(SELECT json_build_object('table', k.conrelid::regclass::text, 'name', k.conname,
                                           'def', pg_get_constraintdef(k.oid))
                    FROM pg_constraint k WHERE k.confrelid = c.oid AND k.conrelid <> c.oid AND k.contype = 'f' AND k.conparentid = 0
                   ORDER BY k.conname) AS referencing,
            ARRAY(SELECT json_build_object('sequence', d.objid::regclass::text, 'column', a.attname)
                    FROM pg_depend d JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.refobjsubid
                   WHERE d.classid = 'pg_class'::regclass AND d.refobjid = c.oid AND d.deptype = 'a'
                     AND d.objid IN (SELECT oid FROM pg_class WHERE relkind = 'S')) AS sequences
       FROM pg_class c WHERE c.oid = to_regclass($1)`,
    [`public.${table}`],
  );
  const defs = rows[0];
  if (!defs) throw new Error(`table ${table} does not exist`);
  return defs;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
