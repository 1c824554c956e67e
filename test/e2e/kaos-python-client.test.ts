import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { embeddedMemstream } from '../helpers/embedded.js';
import { REPO_ROOT, runCaptured } from '../../harness/processes.js';
import { KAOS_LIMITS, KAOS_LIMIT_ENV } from './kaos-contract.js';

const AGENT_KEY = 'python-kaos-key-0123456789abcdef';

// The Python package's own pytest suite (clients/python), against the real server: the drop-in
// LocalMemory replacement runs the scenario KAOS's LocalMemory runs, and must give the same results.
test('the Python KAOS client passes its suite against the embedded server', async (t: TestContext) => {
  const script = resolve(REPO_ROOT, 'clients/python/run-tests.sh');
  assert.ok(existsSync(script), 'clients/python/run-tests.sh exists');
  const base = await embeddedMemstream(t, { ...KAOS_LIMIT_ENV, AUTH_API_KEYS: `kaos-pod:${AGENT_KEY}` });
  const run = await runCaptured('bash', [script, '-q', '-rA'], {
    env: {
      ...process.env,
      MEMSTREAM_URL: base,
      MEMSTREAM_API_KEY: AGENT_KEY,
      MEMSTREAM_MAX_SESSIONS: String(KAOS_LIMITS.sessions),
      MEMSTREAM_MAX_SESSION_EVENTS: String(KAOS_LIMITS.events),
    },
  });
  const output = `${run.stdout}\n${run.stderr}`;
  t.diagnostic(output.split('\n').filter((l) => /passed|failed|skipped|error/i.test(l)).slice(-5).join('\n'));
  assert.equal(run.code, 0, output.slice(-4000));
  assert.match(output, /\d+ passed/);
  assert.doesNotMatch(output, /skipped|xfail|deselected/i, 'nothing skipped: a skipped test is not a passing one');
});
