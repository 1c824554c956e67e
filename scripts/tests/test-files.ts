/**
 * Which test files need infrastructure, decided from the files themselves so the split cannot
 * drift from a list someone forgets to update. A test file needs infrastructure when it lies under
 * test/e2e/ or test/faults/ (they start the services), or when it or a file it imports by a
 * relative path (transitively) uses one of INFRASTRUCTURE: the shared Kafka, PostgreSQL and Redis
 * (test/helpers/infra.ts), a PostgreSQL server of its own, or a started service process.
 * Every other test file is a unit test: `npm run test:unit` runs them, with the infrastructure's
 * settings removed from the environment, so one that reaches infrastructure anyway fails instead of
 * passing by luck.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const END_TO_END = ['test/e2e/', 'test/faults/'];

/** What, named in a file, means the file needs infrastructure. */
const INFRASTRUCTURE: readonly RegExp[] = [
  /\b(infra|freshDatabase|kafkaTopicPrefix|deleteTopics)\(/, // the shared Kafka, PostgreSQL and Redis (test/helpers/infra.ts)
  /['"]@memstream\/embedded-postgres['"]/, // a PostgreSQL server of its own
  /\b(startProcess|startServing|restartServing|startHealthy|startAll|startEmbedded)\(/, // a service process (the embedded mode starts its own PostgreSQL)
];

/** Where those are defined, not used: a file importing waitFor from here or REPO_ROOT from harness/ needs nothing. */
const DEFINERS = ['test/helpers/infra.ts', 'harness/'];

/** Every `*.test.ts` under libs/, services/ and test/, as paths from `root`, sorted. */
export function testFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    !existsSync(dir)
      ? []
      : readdirSync(dir).flatMap((name) => {
          const path = join(dir, name);
          if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
          return statSync(path).isDirectory() ? walk(path) : name.endsWith('.test.ts') ? [path] : [];
        });
  return ['libs', 'services', 'test']
    .flatMap((top) => walk(join(root, top)))
    .map((path) => relative(root, path))
    .sort();
}

/** Why `file` (a path from `root`) needs infrastructure, or undefined when it needs none. */
export function infrastructureOf(root: string, file: string): string | undefined {
  const place = END_TO_END.find((dir) => file.startsWith(dir));
  if (place) return `under ${place}`;
  const seen = new Set<string>();
  const visit = (path: string): string | undefined => {
    const rel = relative(root, path);
    if (seen.has(path) || !existsSync(path) || DEFINERS.some((d) => rel.startsWith(d))) return undefined;
    seen.add(path);
    const source = readFileSync(path, 'utf8');
    const marker = INFRASTRUCTURE.find((re) => re.test(source));
    if (marker) return `${rel} uses ${source.match(marker)![0]}`;
    for (const [, spec] of source.matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const found = visit(resolve(dirname(path), spec!.replace(/\.js$/, '.ts')));
      if (found) return found;
    }
    return undefined;
  };
  return visit(join(root, file));
}

// `node --import tsx scripts/tests/test-files.ts --infrastructure`: the files that need
// infrastructure, one a line (scripts/test.sh runs them after the unit tests).
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--infrastructure')) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  for (const file of testFiles(root)) if (infrastructureOf(root, file) !== undefined) console.log(file);
}
