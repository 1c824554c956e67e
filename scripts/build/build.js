// @ts-check
/**
 * `npm run build`, and the end of `npm ci`: compiles every workspace package's `src/` to `dist/`
 * (JavaScript and source maps), which `npm start`, the `start:*` scripts, the image and the
 * service processes tests start (harness/processes.ts) run with node's
 * `--conditions=memstream-dist`. Test files, benches and scripts run the sources through tsx.
 *
 * File by file with TypeScript's own emitter (`transpileModule`), not `tsc -b`: the root
 * tsconfig's `verbatimModuleSyntax` makes every file compile on its own, so there are no project
 * references to keep in step with each package.json, a full build takes 1-5 s, and only the files
 * changed since the last build are compiled again. Types are `npm run typecheck`'s job.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { buildStamp, MANIFEST, readManifest, ROOT, sourceFiles, staleReason } from './sources.js';

const started = performance.now();
const files = sourceFiles();
if (staleReason(files) === undefined) {
  console.error(`[build] up to date (${files.length} files)`);
  process.exit(0);
}
/** @type {typeof import('typescript')} */
let ts;
try {
  ts = (await import('typescript')).default;
} catch {
  console.error(
    '[build] typescript is not installed (an install with --omit=dev?): install the dev dependencies, then `npm run build`',
  );
  process.exit(1);
}

// The root tsconfig's options (target above all), changed only where emitting needs it: every
// package is "type": "module", which transpileModule cannot look up, so ESM is said outright, and
// resolution, which a single-file emit never does, is one that accepts that module setting.
const parsed = ts.parseJsonConfigFileContent(
  ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config,
  ts.sys,
  ROOT,
);
const options = {
  ...parsed.options,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  noEmit: false,
  sourceMap: true,
  declaration: false,
};

const previous = readManifest()?.files ?? {};
let compiled = 0;
const errors = [];
for (const file of files) {
  if (previous[file.src] === file.stamp && existsSync(join(ROOT, file.out))) continue;
  const srcPath = join(ROOT, file.src);
  const outPath = join(ROOT, file.out);
  const result = ts.transpileModule(readFileSync(srcPath, 'utf8'), {
    compilerOptions: options,
    fileName: srcPath,
    reportDiagnostics: true,
  });
  const problems = (result.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (problems.length > 0) {
    errors.push(
      ts.formatDiagnostics(problems, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
    continue;
  }
  // The map names its source relative to itself, so stack traces point at src/ wherever the tree lives.
  const map = {
    ...JSON.parse(result.sourceMapText ?? '{}'),
    file: basename(outPath),
    sources: [relative(dirname(outPath), srcPath)],
  };
  mkdirSync(dirname(outPath), { recursive: true });
  writeAtomically(`${outPath}.map`, JSON.stringify(map));
  writeAtomically(outPath, result.outputText);
  compiled++;
}
if (errors.length > 0) {
  console.error(`[build] ${errors.length} file(s) do not compile:\n${errors.join('')}`);
  process.exit(1);
}
const removed = removeOrphans(files);
mkdirSync(dirname(MANIFEST), { recursive: true });
writeAtomically(
  MANIFEST,
  JSON.stringify({ build: buildStamp(), files: Object.fromEntries(files.map((f) => [f.src, f.stamp])) }),
);
const took = Math.round(performance.now() - started);
console.error(
  `[build] ${compiled} of ${files.length} files compiled${removed > 0 ? `, ${removed} stale outputs removed` : ''} in ${took} ms`,
);

/**
 * Deletes what dist/ holds for sources that no longer exist, so a removed module cannot be
 * imported from an old build.
 * @param {import('./sources.js').SourceFile[]} current
 * @returns {number} how many files it deleted
 */
function removeOrphans(current) {
  const wanted = new Set(current.flatMap((f) => [join(ROOT, f.out), join(ROOT, `${f.out}.map`)]));
  const distDirs = new Set(current.map((f) => join(ROOT, f.out.slice(0, f.out.indexOf('/dist/') + '/dist'.length))));
  let count = 0;
  for (const dir of distDirs) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && !wanted.has(path)) {
        rmSync(path);
        count++;
      }
    }
  }
  return count;
}

/**
 * Two processes may build at once (tests start several servers; each launcher builds what it finds
 * stale): each file is written beside its place and renamed into it, so a reader sees the old file
 * or the new one, never half of one.
 * @param {string} path
 * @param {string} text
 */
function writeAtomically(path, text) {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}
