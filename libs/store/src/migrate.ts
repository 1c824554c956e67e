import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@memstream/logging';
import { type LayoutSettings, layOut } from './layout/store-layout.js';
import type { Store } from './store.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
// Any constant works; it only has to be the same in every replica that migrates at start-up.
const MIGRATION_LOCK_KEY = 7_310_420_501;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Files named `NNNN_name.sql`, in version order. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: await readFile(new URL(file, `file://${dir}/`), 'utf8'),
    })),
  );
}

/**
 * Applies the migrations not yet applied, all in one transaction under an advisory lock, so
 * replicas starting together neither race nor leave a half-migrated schema behind. With `layout`,
 * the same transaction then lays the tables out (layOut): on every start, so what a new migration
 * created or rebuilt is laid out too.
 */
export async function migrate(
  store: Store,
  log: Logger,
  migrations?: readonly Migration[],
  layout?: LayoutSettings,
): Promise<number[]> {
  const all = migrations ?? (await loadMigrations());
  return store.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: number[] = [];
    for (const m of all) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
      log.info({ version: m.version, name: m.name }, 'migration applied');
    }
    if (layout) await layOut(tx, layout, log);
    return applied;
  });
}
