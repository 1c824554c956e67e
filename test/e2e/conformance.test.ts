import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');

function conformance(args: string[]): void {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'scripts/conformance/run-conformance.ts'), ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(run.status, 0, `${run.stdout.slice(-20_000)}\n${run.stderr.slice(-5_000)}`);
}

/*
 * A bounded Schemathesis run (`npm run conformance` is the long one): its coverage phase makes,
 * for every operation, the requests at the edges of what the document allows and just past them,
 * and checks that a request the document calls valid is not refused (positive_data_acceptance)
 * as well as that an invalid one is. Fuzzing with generated requests is test/e2e/schema-fuzz.test.ts,
 * as a person, an agent and an admin client (a fuzzing phase here repeated its person's run).
 */
test("Schemathesis's coverage cases: every request the document refuses is refused and every one it allows is taken, undeclared methods are 405", () => {
  conformance([
    '--max-examples',
    '2',
    '--phases',
    'coverage',
    '--checks',
    'negative_data_rejection,positive_data_acceptance,unsupported_method,not_a_server_error',
  ]);
});
