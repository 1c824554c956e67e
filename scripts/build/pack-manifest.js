// @ts-check
/**
 * `npm pack` and `npm publish` of a publishable workspace package (@memstream/client,
 * @memstream/schemas). In the repository a package's `exports` name its TypeScript sources by
 * default (tests and scripts run them through tsx) and its compiled `dist/` only under the
 * `memstream-dist` condition; a registry's users need the compiled JavaScript by default.
 * `prepack` builds, keeps the manifest aside and writes the published one (JavaScript by
 * default, the sources as types, `@memstream/*` dependencies at this version); `postpack` puts
 * the repository's back, so the working tree is unchanged after a pack.
 *
 * Run from the package's folder: `node ../../scripts/build/pack-manifest.js prepare|restore`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './sources.js';

const manifest = join(process.cwd(), 'package.json');
const kept = join(process.cwd(), 'package.json.repo');
const step = process.argv[2];

if (step === 'prepare') {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build/build.js')], { stdio: 'inherit' });
  copyFileSync(manifest, kept);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  pkg.exports = { '.': { types: './src/index.ts', default: './dist/index.js' } };
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error('usage: pack-manifest.js prepare|restore');
  process.exit(1);
}
