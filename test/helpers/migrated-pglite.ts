import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@memstream/logging';
import { type LayoutSettings, loadMigrations, migrate, openPglite, type Store } from '@memstream/store';
import { REPO_ROOT } from '../../harness/processes.js';
import { testLayout } from '../../harness/store-layout.js';

const log = createLogger({ service: 'test', level: 'silent' });

const images = new Map<string, Promise<Blob>>();

/** The code of a layout, part of an image's name when it is laid out. */
const LAYOUT_CODE = readdirSync(join(REPO_ROOT, 'libs/store/src/layout'));

/**
 * A PGlite store in memory with every migration applied (with `before`, those numbered below it),
 * laid out as the suite runs when all are (an older schema is for migration tests); the caller
 * closes it. It opens as a copy of a migrated data directory kept as a tarball under
 * .cache/pglite-images/, named by a hash of the migrations, of the code that applies them and of
 * PGlite's version, so a change to any of them makes a new one. Opening a copy took about 0.9 s
 * here, against 2.6 s to create an empty cluster and migrate it, and PGlite tests spent most of
 * their time there. Every call is a fresh copy: tests share no rows.
 */
export async function migratedPglite(options: { before?: number } = {}): Promise<Store> {
  const layout = testLayout();
  // not `all-…`: each label's old images are removed by that prefix
  const label =
    options.before !== undefined ? `before-${options.before}` : layout.STORE_LAYOUT === 'plain' ? 'all' : 'partitioned';
  let image = images.get(label);
  if (!image) {
    const laidOut = options.before === undefined ? layout : undefined;
    images.set(label, (image = imageOfMigratedDatabase(label, options.before ?? Number.POSITIVE_INFINITY, laidOut)));
  }
  return openPglite(undefined, await image);
}

async function imageOfMigratedDatabase(label: string, before: number, layout?: LayoutSettings): Promise<Blob> {
  const migrations = (await loadMigrations()).filter((m) => m.version < before);
  const version = JSON.parse(
    readFileSync(join(REPO_ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  const hash = createHash('sha256')
    .update(version.version)
    .update(readFileSync(join(REPO_ROOT, 'libs/store/src/migrate.ts')));
  if (layout) {
    hash.update(JSON.stringify(layout));
    for (const file of LAYOUT_CODE) hash.update(readFileSync(join(REPO_ROOT, 'libs/store/src/layout', file)));
  }
  for (const m of migrations) hash.update(`\0${m.version}\0${m.sql}`);
  const dir = join(REPO_ROOT, '.cache/pglite-images');
  const path = join(dir, `${label}-${hash.digest('hex').slice(0, 16)}.tar.gz`);
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  const template = await openPglite();
  try {
    await migrate(template, log, migrations, layout);
    const blob = await template.dump();
    // written whole under another name first: a process running beside this one reads no half file
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, path);
    // this set's images of older migrations are of no further use
    for (const old of readdirSync(dir)) {
      if (old.startsWith(`${label}-`) && old.endsWith('.tar.gz') && join(dir, old) !== path) rmSync(join(dir, old));
    }
    return blob;
  } finally {
    await template.close();
  }
}

/**
 * A PGlite store with every migration but `version` (and `later`, those after it that must follow
 * it, as one filling a table from what `version` changes): the schema an existing database has
 * when a migration numbered below ones already applied arrives (the runner applies it last there).
 */
export async function migratedPgliteWithout(version: number, later: readonly number[] = []): Promise<Store> {
  const store = await migratedPglite({ before: version });
  await migrate(
    store,
    log,
    (await loadMigrations()).filter((m) => m.version > version && !later.includes(m.version)),
  );
  return store;
}
