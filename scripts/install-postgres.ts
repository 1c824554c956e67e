/**
 * `npm ci`'s postinstall (and `npm run postgres:install`): puts PostgreSQL with pgvector where the
 * embedded mode starts it (see libs/embedded-postgres), so `npm start` needs nothing
 * else. Fast when it is there already.
 *
 * Env: MEMSTREAM_POSTGRES_DIR (where; default <repo>/.cache/postgres/pgserver-<version>),
 * MEMSTREAM_SKIP_POSTGRES_INSTALL=1 (machines and images that only run with DATABASE_URL). The
 * wheel comes through `python3 -m pip download`, so pip's own configuration says where from.
 */
import { installPostgres, postgresPin, resolvePostgresDir } from '@memstream/embedded-postgres';

const log = (line: string) => console.log(`[postgres] ${line}`);

if (['1', 'true', 'yes'].includes(process.env.MEMSTREAM_SKIP_POSTGRES_INSTALL ?? '')) {
  log('MEMSTREAM_SKIP_POSTGRES_INSTALL is set: the embedded PostgreSQL is not installed (set DATABASE_URL to run)');
} else {
  const dir = resolvePostgresDir(process.env.MEMSTREAM_POSTGRES_DIR?.trim() || undefined);
  const started = performance.now();
  try {
    const outcome = await installPostgres({ dir, log });
    if (outcome === 'unsupported') {
      log(
        `no prebuilt PostgreSQL for ${process.platform}-${process.arch}: set DATABASE_URL, or EMBEDDED_STORE=pglite (not crash-safe)`,
      );
    } else {
      log(
        `${outcome === 'present' ? 'already installed' : 'installed'}: ${dir} (${Math.round(performance.now() - started)} ms)`,
      );
    }
  } catch (err) {
    console.error(
      `[postgres] could not install ${postgresPin()?.filename ?? 'pgserver'} through pip: ${err instanceof Error ? err.message : String(err)}`,
    );
    console.error(
      "[postgres] pip must reach its package index (pip's configuration or PIP_INDEX_URL names it). Try again with `npm run postgres:install`.",
    );
    process.exitCode = 1;
  }
}
