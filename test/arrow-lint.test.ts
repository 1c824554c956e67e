import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findProblems } from '../scripts/arrows/find-problems.js';

/**
 * A small tree that keeps every rule: two libs (b uses a), a schemas lib on zod, two services and
 * the composition root, a benchmark and a test on harness/. Each case adds one file or manifest
 * and expects exactly the problem it plants.
 */
const CLEAN: Record<string, string> = {
  'libs/a/package.json': JSON.stringify({ name: '@memstream/a', dependencies: { yaml: '2' } }),
  'libs/a/src/index.ts': `import { parse } from 'yaml';\nexport const a = parse;\n`,
  'libs/b/package.json': JSON.stringify({ name: '@memstream/b', dependencies: { '@memstream/a': '0' } }),
  'libs/b/src/index.ts': `import { a } from '@memstream/a';\nexport const b = a;\n`,
  'libs/schemas/package.json': JSON.stringify({ name: '@memstream/schemas', dependencies: { zod: '4' } }),
  'libs/schemas/src/index.ts': `import { z } from 'zod';\nexport const S = z.string();\n`,
  'services/one/package.json': JSON.stringify({ name: '@memstream/one', dependencies: { '@memstream/b': '0' } }),
  'services/one/src/main.ts': `import { b } from '@memstream/b';\nimport { x } from './x.js';\nexport { b, x };\n`,
  'services/one/src/x.ts': `export const x = await import('node:os');\n`,
  'services/two/package.json': JSON.stringify({ name: '@memstream/two', dependencies: {} }),
  'services/two/src/main.ts': `export const two = 2;\n`,
  'services/all-in-one/package.json': JSON.stringify({
    name: '@memstream/all-in-one',
    dependencies: { '@memstream/one': '0', '@memstream/two': '0' },
  }),
  'services/all-in-one/src/main.ts': `import { b } from '@memstream/one';\nimport { two } from '@memstream/two';\nexport { b, two };\n`,
  'harness/processes.ts': `export const start = () => 0;\n`,
  'bench/run.ts': `import { start } from '../harness/processes.js';\nimport { b } from '@memstream/b';\nexport { start, b };\n`,
  'test/helpers/fixture.ts': `export const f = 1;\n`,
  'test/e2e/flow.test.ts': `import { start } from '../../harness/processes.js';\nimport { f } from '../helpers/fixture.js';\nimport { one } from '@memstream/one';\nexport { start, f, one };\n`,
  // a lib's test may use a lib that depends on the lib: not a cycle of what ships
  'libs/a/test/with-b.test.ts': `import { b } from '@memstream/b';\nexport { b };\n`,
};

function tree(t: TestContext, extra: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'arrow-lint-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries({ ...CLEAN, ...extra })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('the arrow lint finds nothing in a tree that keeps its rules, nor in this repository', (t) => {
  assert.deepEqual(findProblems(tree(t, {})), []);
  // the governance worker runs the jobs, and a service may still make a job row and read it
  const jobs = {
    'services/governance/package.json': JSON.stringify({ name: '@memstream/governance', dependencies: {} }),
    'services/governance/src/main.ts': `import { claimEvictionJob, purgeRequestOutcomes } from '@memstream/store';\nexport { claimEvictionJob, purgeRequestOutcomes };\n`,
    'services/one/src/evict.ts': `import { createEvictionJob, findEvictionJob } from '@memstream/store';\nexport { createEvictionJob, findEvictionJob };\n`,
  };
  assert.deepEqual(findProblems(tree(t, jobs)), []);
  assert.deepEqual(findProblems(join(import.meta.dirname, '..')), []);
});

const violations: Array<[string, Record<string, string>, RegExp]> = [
  [
    'a lib importing a service',
    { 'libs/a/src/bad.ts': `import { two } from '@memstream/two';\nexport { two };\n` },
    /^libs\/a\/src\/bad\.ts: a lib imports service two/,
  ],
  [
    'a service importing another',
    { 'services/two/src/bad.ts': `import { b } from '@memstream/one';\nexport { b };\n` },
    /^services\/two\/src\/bad\.ts: service two imports service one/,
  ],
  [
    'the composition root reaching into a service file',
    { 'services/all-in-one/src/bad.ts': `import { x } from '../../one/src/x.js';\nexport { x };\n` },
    /service all-in-one imports service one/,
  ],
  [
    'a cycle between libs',
    { 'libs/a/src/back.ts': `import { b } from '@memstream/b';\nexport { b };\n` },
    /^libs import each other in a cycle: a -> b -> a$/,
  ],
  [
    'a deep import by package name',
    { 'services/one/src/deep.ts': `import { a } from '@memstream/a/src/index.js';\nexport { a };\n` },
    /^services\/one\/src\/deep\.ts: reaches into @memstream\/a's files/,
  ],
  [
    'a relative import out of a package',
    { 'libs/b/src/rel.ts': `import { a } from '../../a/src/index.js';\nexport { a };\n` },
    /^libs\/b\/src\/rel\.ts: relative import leaves its package/,
  ],
  [
    'import() with a template literal',
    { 'services/one/src/dyn.ts': 'const name = "a";\nexport const m = await import(`@memstream/${name}`);\n' },
    /^services\/one\/src\/dyn\.ts: import\(\) of a template literal/,
  ],
  [
    'a benchmark importing test code',
    { 'bench/bad.ts': `import { f } from '../test/helpers/fixture.js';\nexport { f };\n` },
    /^bench\/bad\.ts: bench\/ imports test\/ code/,
  ],
  [
    'the harness importing test code',
    { 'harness/bad.ts': `import { f } from '../test/helpers/fixture.js';\nexport { f };\n` },
    /^harness\/bad\.ts: harness\/ imports test\/ code/,
  ],
  [
    'a test reaching into a lib file',
    { 'test/deep.test.ts': `import { a } from '../libs/a/src/index.js';\nexport { a };\n` },
    /^test\/deep\.test\.ts: relative import leaves its package/,
  ],
  [
    'schemas depending on more than zod',
    { 'libs/schemas/src/bad.ts': `import { parse } from 'yaml';\nexport { parse };\n` },
    /^libs\/schemas\/src\/bad\.ts: @memstream\/schemas may depend only on zod \(yaml\)/,
  ],
  [
    'a lib importing a framework another lib wraps',
    { 'libs/b/src/web.ts': `import type { FastifyRequest } from 'fastify';\nexport type R = FastifyRequest;\n` },
    /^libs\/b\/src\/web\.ts: fastify belongs to libs\/http/,
  ],
  [
    'a browser-safe lib importing a Node built-in',
    {
      'libs/retry/package.json': JSON.stringify({ name: '@memstream/retry', dependencies: {} }),
      'libs/retry/src/index.ts': `import { setTimeout } from 'node:timers/promises';\nexport const wait = setTimeout;\n`,
    },
    /^libs\/retry\/src\/index\.ts: runs in browsers too, so it may not import node:timers\/promises/,
  ],
  [
    'a dependency declared and never imported',
    {
      'libs/b/package.json': JSON.stringify({
        name: '@memstream/b',
        dependencies: { '@memstream/a': '0', ioredis: '5' },
      }),
    },
    /^libs\/b\/package\.json: declares ioredis, which none of its files imports$/,
  ],
  [
    'a service other than governance taking a job (the converter purging request outcomes)',
    {
      'services/one/src/purge.ts': `import { purgeRequestOutcomes, type Store } from '@memstream/store';\nexport const purge = (s: Store) => purgeRequestOutcomes(s, new Date());\n`,
    },
    /^services\/one\/src\/purge\.ts: runs a background job \(purgeRequestOutcomes from @memstream\/store\); jobs run in services\/governance$/,
  ],
  [
    'an API process claiming an eviction job under another name, or re-exporting a lease statement',
    {
      'services/two/src/evict.ts': `import { claimEvictionJob as take } from '@memstream/store';\nexport { claimJobLease } from '@memstream/store';\nexport { take };\n`,
    },
    /^services\/two\/src\/evict\.ts: runs a background job \(claimEvictionJob, claimJobLease from @memstream\/store\)/,
  ],
  [
    'a namespace import of the store in a service, which takes its job statements too',
    { 'services/one/src/all.ts': `import * as store from '@memstream/store';\nexport { store };\n` },
    /^services\/one\/src\/all\.ts: runs a background job \(\* from @memstream\/store\)/,
  ],
];

for (const [what, files, expected] of violations) {
  test(`the arrow lint catches ${what}`, (t) => {
    const problems = findProblems(tree(t, files));
    // a path into another service's files breaks two rules at once; nothing else may be reported
    assert.ok(problems.length >= 1 && problems.length <= 2, `got: ${problems.join('; ')}`);
    assert.ok(
      problems.some((p) => expected.test(p)),
      `expected ${expected}, got: ${problems.join('; ')}`,
    );
  });
}
