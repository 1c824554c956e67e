/**
 * The arrow lint's rules, as a pure function of a tree (so its test can feed it each violation):
 * - services import libs, never each other; the one exception is services/all-in-one, the
 *   embedded mode's composition root, which may import other services' package entry points;
 * - libs never import services, and what libs ship (src/) imports no lib that imports it back:
 *   their tests may (a lib's contract test may run on a store that depends on the lib);
 * - @memstream/schemas depends only on zod;
 * - a framework or driver is imported by the one lib that wraps it (FRAMEWORKS), so the other libs
 *   take plain values and the wrapper is the one place that changes when the framework does;
 * - a package is imported by its name, never by a path into its files: no relative import leaves
 *   its package, and no `@memstream/<pkg>/<file>` (those skip the package's exports, so a
 *   compiled build would load sources);
 * - bench/, harness/ and test/ follow the same rule for libs and services; bench/ imports no test/
 *   and harness/ neither (a benchmark built on test helpers changes when a test does: what both
 *   need, starting processes or a loopback model server, lives in harness/);
 * - `import()` takes a string literal: a template literal or a computed name cannot be checked;
 * - a package declares no dependency that none of its files imports;
 * - what runs in browsers too (BROWSER_SAFE: the client and what it ships with) imports no Node
 *   built-in and no other package of ours;
 * - background jobs run in one process role: only services/governance (and what the composition
 *   root takes from it) imports the store's statements that take, run or end a job (JOB_STATEMENTS),
 *   so the converter only applies input events and the API processes run no jobs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const COMPOSITION_ROOT = 'all-in-one';

/** Libs published for browsers as well as Node, and the only packages of ours each may import. */
const BROWSER_SAFE: Readonly<Record<string, readonly string[]>> = {
  client: ['@memstream/schemas', '@memstream/retry'],
  schemas: [],
  retry: [],
};

/** Each framework or driver, and the libs that wrap it. Services may use them directly (their glue). */
const FRAMEWORKS: Readonly<Record<string, readonly string[]>> = {
  fastify: ['http'],
  kafkajs: ['bus'],
  // the supervisor probes and bootstraps the server it started, before any pool exists
  pg: ['store', 'embedded-postgres'],
  '@electric-sql/pglite': ['store'],
  ioredis: ['fanout'],
  pino: ['logging'],
  'prom-client': ['metrics'],
  jose: ['auth'],
  'onnxruntime-node': ['embedding'],
  // one model API, two wrappers: chat completions (llm) and embeddings (embedding)
  openai: ['llm', 'embedding'],
};
const SCOPE = '@memstream/';

/** The one service that runs background jobs (erasure, eviction, retention, purges). */
const JOB_RUNNER = 'governance';
/** The store's statements that claim, run, renew or end a job; the API only makes job rows and reads them. */
const JOB_STATEMENTS: ReadonlySet<string> = new Set([
  'claimErasureJob',
  'runErasureBatch',
  'finishErasurePass',
  'advanceErasureJob',
  'failErasureJob',
  'noteErasureReason',
  'renewErasureLease',
  'eraseOwnedConversations',
  'eraseSentMessages',
  'eraseKeyedRecords',
  'eraseWrittenAbout',
  'claimEvictionJob',
  'evictBatch',
  'finishEvictionJob',
  'settleDiscards',
  'claimJobLease',
  'renewJobLease',
  'releaseJobLease',
  'expireMessages',
  'expireMemories',
  'expireSummaries',
  'expireArkSessions',
  'purgeRequestOutcomes',
  // the runners that lived in the store before the worker had them
  'runErasureJob',
  'startErasureSweep',
  'runEvictionJob',
  'sweepEvictionJobs',
  'runRetention',
]);

/**
 * The names a source imports (or re-exports) from `spec`, by their exported name; `*` for a
 * namespace import or `export *`, which takes every name.
 */
export function namesImported(source: string, spec: string, fileName = 'module.ts'): string[] {
  const names: string[] = [];
  const from = (node: ts.Node | undefined) => node !== undefined && ts.isStringLiteral(node) && node.text === spec;
  for (const statement of ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false).statements) {
    if (ts.isImportDeclaration(statement) && from(statement.moduleSpecifier)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
      else if (bindings) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(statement) && from(statement.moduleSpecifier)) {
      const clause = statement.exportClause;
      if (clause === undefined || ts.isNamespaceExport(clause)) names.push('*');
      else for (const e of clause.elements) names.push((e.propertyName ?? e.name).text);
    }
  }
  return names;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // dist/ is compiled from src/, import for import: checking it again would only repeat findings
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    return statSync(path).isDirectory() ? walk(path) : /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/**
 * Every module a source names (static and dynamic imports, re-exports, `import('x')` types and
 * import.meta.resolve), read from its syntax tree so that an import written inside a string or a
 * comment is not one; and how many `import()` calls name their module other than by a string
 * literal, which no lint can follow.
 */
export function specifiers(source: string, fileName = 'module.ts'): { specs: string[]; computed: number } {
  const specs: string[] = [];
  let computed = 0;
  const literal = (node: ts.Node | undefined) =>
    node !== undefined && ts.isStringLiteral(node) ? node.text : undefined;
  const visit = (node: ts.Node): void => {
    let spec: string | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      spec = literal(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) spec = literal(node.argument.literal);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      spec = literal(node.arguments[0]);
      if (spec === undefined) computed += 1;
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'resolve' &&
      ts.isMetaProperty(node.expression.expression)
    ) {
      spec = literal(node.arguments[0]);
    }
    if (spec !== undefined) specs.push(spec);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false));
  return { specs, computed };
}

/** The package a bare specifier names: `@scope/name` or `name`. */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

interface Unit {
  /** `libs`, `services`, `bench`, `harness` or `test` */
  readonly kind: string;
  /** the package's folder name; for bench and test, the folder itself */
  readonly name: string;
  readonly dir: string;
}

function unitsOf(root: string): Unit[] {
  const packages = (kind: string) =>
    existsSync(join(root, kind))
      ? readdirSync(join(root, kind))
          .filter((n) => statSync(join(root, kind, n)).isDirectory())
          .map((name) => ({ kind, name, dir: join(root, kind, name) }))
      : [];
  const folder = (kind: string) => ({ kind, name: kind, dir: join(root, kind) });
  return [...packages('libs'), ...packages('services'), folder('bench'), folder('harness'), folder('test')];
}

export function findProblems(root: string): string[] {
  const units = unitsOf(root);
  const libs = new Set(units.filter((u) => u.kind === 'libs').map((u) => u.name));
  const services = new Set(units.filter((u) => u.kind === 'services').map((u) => u.name));
  const problems: string[] = [];
  const libEdges = new Map<string, Set<string>>();

  for (const unit of units) {
    const imported = new Set<string>();
    for (const file of walk(unit.dir)) {
      const rel = relative(root, file);
      const { specs, computed } = specifiers(readFileSync(file, 'utf8'), file);
      if (computed > 0)
        problems.push(`${rel}: import() of a template literal or a computed name; name the module in a string literal`);
      for (const spec of specs) {
        const browser =
          unit.kind === 'libs' && relative(unit.dir, file).startsWith('src/') ? BROWSER_SAFE[unit.name] : undefined;
        if (browser && (spec.startsWith('node:') || (spec.startsWith(SCOPE) && !browser.includes(packageOf(spec))))) {
          problems.push(`${rel}: runs in browsers too, so it may not import ${spec}`);
        }
        if (spec.startsWith('node:')) continue;
        if (!spec.startsWith('.')) imported.add(packageOf(spec));
        const target = spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : undefined;
        const { kind: intoKind, name: into } = packageNamed(spec, target, libs, services);
        const own = intoKind === unit.kind && into === unit.name;

        const framework = spec.startsWith('.')
          ? undefined
          : (FRAMEWORKS[packageOf(spec)] ?? (spec.startsWith('@fastify/') ? FRAMEWORKS['fastify'] : undefined));
        if (
          unit.kind === 'libs' &&
          framework &&
          !framework.includes(unit.name) &&
          relative(unit.dir, file).startsWith('src/')
        ) {
          problems.push(
            `${rel}: ${packageOf(spec)} belongs to libs/${framework.join(' and libs/')}; take plain values from it`,
          );
        }
        if (spec.startsWith(SCOPE) && spec !== packageOf(spec))
          problems.push(`${rel}: reaches into ${packageOf(spec)}'s files (${spec}); import the package`);
        if (target !== undefined && !own && /^(libs|services)\//.test(target))
          problems.push(`${rel}: relative import leaves its package (${spec}); import the package instead`);
        if (
          (unit.kind === 'bench' || unit.kind === 'harness') &&
          /^(test|bench)\//.test(target ?? '') &&
          !target!.startsWith(`${unit.kind}/`)
        ) {
          problems.push(
            `${rel}: ${unit.kind}/ imports ${target!.split('/')[0]}/ code (${spec}); share it through harness/`,
          );
        }
        if (own || into === undefined) continue;
        if (unit.kind === 'libs' && intoKind === 'services')
          problems.push(`${rel}: a lib imports service ${into} (${spec})`);
        if (unit.kind === 'libs' && intoKind === 'libs' && relative(unit.dir, file).startsWith('src/'))
          libEdges.set(unit.name, (libEdges.get(unit.name) ?? new Set()).add(into));
        if (
          unit.kind === 'services' &&
          intoKind === 'services' &&
          !(unit.name === COMPOSITION_ROOT && spec === `${SCOPE}${into}`)
        ) {
          problems.push(`${rel}: service ${unit.name} imports service ${into} (${spec})`);
        }
      }
      if (unit.kind === 'services' && unit.name !== JOB_RUNNER && relative(unit.dir, file).startsWith('src/')) {
        const text = readFileSync(file, 'utf8');
        const jobs = namesImported(text, `${SCOPE}store`, file).filter((n) => n === '*' || JOB_STATEMENTS.has(n));
        if (jobs.length > 0)
          problems.push(
            `${rel}: runs a background job (${jobs.join(', ')} from @memstream/store); jobs run in services/${JOB_RUNNER}`,
          );
      }
      if (unit.kind === 'libs' && unit.name === 'schemas') {
        for (const spec of specs)
          if (!spec.startsWith('.') && spec !== 'zod')
            problems.push(`${rel}: @memstream/schemas may depend only on zod (${spec})`);
      }
    }
    problems.push(...unusedDependencies(root, unit, imported));
  }
  problems.push(...cycles(libEdges).map((c) => `libs import each other in a cycle: ${c.join(' -> ')}`));
  return problems;
}

/** The lib or service a specifier leads into, if any. */
function packageNamed(
  spec: string,
  target: string | undefined,
  libs: Set<string>,
  services: Set<string>,
): { kind?: string; name?: string } {
  const path = target?.match(/^(libs|services)\/([^/]+)(?:\/|$)/);
  if (path) return { kind: path[1]!, name: path[2]! };
  if (!spec.startsWith(SCOPE)) return {};
  const name = packageOf(spec).slice(SCOPE.length);
  return { kind: services.has(name) ? 'services' : libs.has(name) ? 'libs' : undefined, name };
}

function unusedDependencies(root: string, unit: Unit, imported: Set<string>): string[] {
  const manifest = join(unit.dir, 'package.json');
  if (!(unit.kind === 'libs' || unit.kind === 'services') || !existsSync(manifest)) return [];
  const { dependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(dependencies)
    .filter((dep) => !imported.has(dep))
    .map((dep) => `${relative(root, manifest)}: declares ${dep}, which none of its files imports`);
}

/** A cycle through each group of libs that import each other, as the path that closes it. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  // a finished node's every cycle was found while it was on the path
  const finished = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at >= 0) return void found.push([...path.slice(at), node]);
    if (finished.has(node)) return;
    for (const next of [...(edges.get(node) ?? [])].sort()) visit(next, [...path, node]);
    finished.add(node);
  };
  for (const node of [...edges.keys()].sort()) visit(node, []);
  return found;
}
