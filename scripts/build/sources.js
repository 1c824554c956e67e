// @ts-check
/**
 * What the build compiles, and whether its output is current. Shared by the build and by the
 * launcher `npm start` runs, which asks on every start and must answer in milliseconds, so this
 * is plain JavaScript that loads nothing but node's own modules (no TypeScript, no tsx).
 *
 * Each workspace package's `src/**.ts` becomes `dist/**.js` beside it, same layout, so paths a
 * module finds from its own place (`../migrations/`, the model folder) hold in both.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** In node_modules, so `npm ci` (which empties it) always ends in a full build. */
export const MANIFEST = join(ROOT, 'node_modules/.cache/memstream/build.json');
/** Files that decide how every source compiles (options, the compiler's version): a change to one recompiles everything. */
const BUILD_INPUTS = [
  'tsconfig.json',
  'scripts/build/build.js',
  'scripts/build/sources.js',
  'node_modules/typescript/package.json',
];

/**
 * @typedef {{ src: string; out: string; stamp: string }} SourceFile
 *   src and out relative to the root; stamp is mtime and size, what a change to the file changes
 * @typedef {{ build: string; files: Record<string, string> }} Manifest
 */

/** @returns {SourceFile[]} every TypeScript source of every package under libs/ and services/ */
export function sourceFiles() {
  return ['libs', 'services'].flatMap((kind) =>
    readdirSync(join(ROOT, kind)).flatMap((pkg) => {
      const srcDir = join(ROOT, kind, pkg, 'src');
      if (!existsSync(srcDir)) return [];
      return walk(srcDir)
        .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
        .map((path) => {
          const out = join(ROOT, kind, pkg, 'dist', relative(srcDir, path).replace(/\.ts$/, '.js'));
          return { src: relative(ROOT, path), out: relative(ROOT, out), stamp: stampOf(path) };
        });
    }),
  );
}

/** @returns {string} the stamps of the build's own inputs, one string */
export function buildStamp() {
  return BUILD_INPUTS.map((path) => stampOf(join(ROOT, path))).join(' ');
}

/** @returns {Manifest | undefined} what the last build compiled, if the same build (options, compiler) made it */
export function readManifest() {
  try {
    const manifest = /** @type {Manifest} */ (JSON.parse(readFileSync(MANIFEST, 'utf8')));
    return manifest.build === buildStamp() ? manifest : undefined;
  } catch {
    return undefined; // never built here, or `npm ci` has emptied node_modules since
  }
}

/**
 * Why the build output is not current, or undefined when it is. Compares mtime and size rather
 * than "newer than", so a file restored with an older mtime (a checkout, `cp -p`) counts too, and
 * a source added or removed does as well.
 * @param {SourceFile[]} files
 * @returns {string | undefined}
 */
export function staleReason(files) {
  const manifest = readManifest();
  if (manifest === undefined) return 'no build yet, or the build itself changed';
  for (const file of files) {
    if (manifest.files[file.src] !== file.stamp) return `${file.src} changed`;
    if (!existsSync(join(ROOT, file.out))) return `${file.out} is missing`;
  }
  const current = new Set(files.map((f) => f.src));
  const removed = Object.keys(manifest.files).find((src) => !current.has(src));
  return removed === undefined ? undefined : `${removed} was removed`;
}

/** @param {string} path @returns {string} */
function stampOf(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? 'none' : `${stat.mtimeMs}:${stat.size}`;
}

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}
