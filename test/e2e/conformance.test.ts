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
 * Bounded Schemathesis runs (`npm run conformance` is the long one), about a minute together on
 * an idle machine. Both check that a request the document calls valid is not refused
 * (positive_data_acceptance) as well as that an invalid one is.
 */
test('Schemathesis fuzzing finds no 500, no valid request refused, and no status, content type or body the document does not declare', () => {
  conformance([
    '--max-examples',
    '3',
    '--phases',
    'fuzzing',
    '--checks',
    'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection,positive_data_acceptance,unsupported_method',
  ]);
});

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
