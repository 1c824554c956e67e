import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { infrastructureOf, testFiles } from '../scripts/tests/test-files.js';

// Built so that this file does not name what it describes, which would make it need infrastructure itself.
const [FRESH, INFRA, START, SERVER] = ['freshDatabase', 'infra', 'startProcess', '@memstream/embedded' + '-postgres'];
const SERVE = 'start' + 'Serving';
const TREE: Record<string, string> = {
  'libs/a/test/pure.test.ts': `import { waitFor } from '../../../test/helpers/infra.js';\nimport { REPO_ROOT } from '../../../harness/processes.js';\n`,
  'libs/a/test/shared.test.ts': `import { t } from './fixture.js';\n`,
  'libs/a/test/fixture.ts': `import { ${FRESH} } from '../../../test/helpers/infra.js';\nexport const t = () => ${FRESH}(x);\n`,
  'libs/b/test/server.test.ts': `import { embeddedPostgresOf } from '${SERVER}';\n`,
  'services/c/test/process.test.ts': `import { ${START} } from '../../../harness/processes.js';\n${START}(t, 'x');\n`,
  // a service started through a helper of the test's own, on a port it owns
  'services/d/test/served.test.ts': `import { serve } from './serve.js';\n`,
  'services/d/test/serve.ts': `import { ${SERVE} } from '../../../harness/processes.js';\nexport const serve = () => ${SERVE}(t, 'x', {});\n`,
  'test/e2e/flow.test.ts': `export {};\n`,
  'test/faults/faults.test.ts': `export {};\n`,
  'test/helpers/infra.ts': `export function ${INFRA}() {}\nexport function ${FRESH}() { ${INFRA}(); }\n`,
  'harness/processes.ts': `export function ${START}() {}\nexport function ${SERVE}() {}\n`,
};

test('a test file needs infrastructure when it or a helper it imports uses it, not when it only imports from where it is defined', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'memstream-test-files-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(TREE)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const unit = testFiles(root).filter((file) => infrastructureOf(root, file) === undefined);
  assert.deepEqual(unit, ['libs/a/test/pure.test.ts']);
  assert.match(infrastructureOf(root, 'libs/a/test/shared.test.ts')!, /fixture\.ts uses /);
  assert.match(infrastructureOf(root, 'services/d/test/served.test.ts')!, /serve\.ts uses /);
});
