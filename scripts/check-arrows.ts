/**
 * The arrow lint: services import libs, never each other; libs never import services; schemas
 * depends only on zod. The one exception is services/all-in-one, the embedded mode's composition
 * root, which may import other services' package entry points (never their files).
 * Exits 1 listing every offending import.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const COMPOSITION_ROOT = 'all-in-one';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // dist/ is compiled from src/, import for import: checking it again would only repeat findings
    if (name === 'node_modules' || name === 'dist') return [];
    return statSync(path).isDirectory() ? walk(path) : /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

function specifiers(source: string): string[] {
  const out: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

const services = readdirSync(join(root, 'services'));
const problems: string[] = [];

for (const kind of ['libs', 'services'] as const) {
  for (const pkg of readdirSync(join(root, kind))) {
    for (const file of walk(join(root, kind, pkg))) {
      const rel = relative(root, file);
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const target = spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : spec;
        const intoService = services.find(
          (s) => spec === `@memstream/${s}` || spec.startsWith(`@memstream/${s}/`) || target.startsWith(`services/${s}/`),
        );
        const ownPackage = target.startsWith(`${kind}/${pkg}/`) || spec === `@memstream/${pkg}`;
        if (kind === 'libs' && intoService) problems.push(`${rel}: a lib imports service ${intoService} (${spec})`);
        if (kind === 'libs' && !spec.startsWith('.') && target.startsWith('libs/')) {
          problems.push(`${rel}: reaches into another lib's files (${spec}); import its package`);
        }
        if (kind === 'services' && intoService && intoService !== pkg) {
          const allowed = pkg === COMPOSITION_ROOT && spec === `@memstream/${intoService}`;
          if (!allowed) problems.push(`${rel}: service ${pkg} imports service ${intoService} (${spec})`);
        }
        if (!ownPackage && spec.startsWith('.') && (target.startsWith('libs/') || target.startsWith('services/'))) {
          problems.push(`${rel}: relative import leaves its package (${spec}); import the package instead`);
        }
        if (kind === 'libs' && pkg === 'schemas' && !spec.startsWith('.') && spec !== 'zod') {
          problems.push(`${rel}: @memstream/schemas may depend only on zod (${spec})`);
        }
      }
    }
  }
}

if (problems.length > 0) {
  console.error(`arrow lint: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('arrow lint: services import only libs; libs import no service');
