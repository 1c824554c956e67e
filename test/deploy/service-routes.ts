import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './catalogue.js';

export interface ServiceRoute {
  readonly service: string;
  readonly method: string;
  /** A concrete path for the route: `:param` segments filled in. */
  readonly path: string;
  readonly declared: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Per-process endpoints every service serves for probes and scrapers, never routed from outside. */
const INTERNAL = /^\/(health|metrics)(\/|$)/;

/**
 * The public HTTP routes a service registers (`app.get('/path', ...)` and the like, as its source
 * writes them), but the internal ones above.
 */
export function routesOf(service: string): ServiceRoute[] {
  const routes: ServiceRoute[] = [];
  const re = /\bapp\.(get|post|put|patch|delete)\s*(?:<[^(]*>)?\(\s*['"`]([^'"`]+)['"`]/g;
  for (const file of sourceFiles(join(ROOT, 'services', service, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(re)) {
      const declared = m[2]!;
      if (INTERNAL.test(declared)) continue;
      routes.push({ service, method: m[1]!.toUpperCase(), declared, path: declared.replace(/:[A-Za-z_]+/g, 'some-id') });
    }
  }
  return routes;
}
