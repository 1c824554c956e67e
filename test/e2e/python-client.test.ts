import { before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { embeddedMemstream } from '../helpers/embedded.js';
import { distributedEnv, pipelineEnv, startServices } from '../helpers/distributed.js';
import { REPO_ROOT, runCaptured } from '../../harness/processes.js';
import { TEST_JWT_SECRET } from '../../harness/credentials.js';
import { KAOS_LIMITS, KAOS_LIMIT_ENV } from './kaos-contract.js';

const SCRIPT = resolve(REPO_ROOT, 'clients/python/run-tests.sh');
const AGENT_KEY = 'python-client-key-0123456789abcdef';
/** People with HS256 tokens (the Python tests mint them with the secret), one agent key. */
const AUTH_ENV = { AUTH_JWT_SECRET: TEST_JWT_SECRET, AUTH_API_KEYS: `python-agent:${AGENT_KEY}` };
const PYTHON_AUTH = { MEMSTREAM_API_KEY: AGENT_KEY, MEMSTREAM_JWT_SECRET: TEST_JWT_SECRET };
/** The scenarios that run each family's every method; the other files need authentication on or a server of their own. */
const FAMILY_SCENARIOS = [
  'test_client_evermemos.py',
  'test_client_ark.py',
  'test_client_kaos.py',
  'test_client_memory_service.py',
].map((f) => `tests/${f}`);

/** The package's pytest suite (clients/python) against a real server: fails on any failure and on any skip. */
async function pytest(t: TestContext, env: Record<string, string>, args: string[]): Promise<void> {
  const run = await runCaptured('bash', [SCRIPT, '-q', '-rA', '-p', 'no:cacheprovider', ...args], {
    env: { ...process.env, ...env },
  });
  const output = `${run.stdout}\n${run.stderr}`;
  t.diagnostic(
    output
      .split('\n')
      .filter((l) => /passed|failed|error/i.test(l))
      .slice(-3)
      .join('\n'),
  );
  assert.equal(run.code, 0, output.slice(-6000));
  assert.match(output, /\d+ passed/);
  assert.doesNotMatch(output, /skipped|xfail|deselected/i, 'nothing skipped: a skipped test is not a passing one');
}

// The virtual environment is made once (from PyPI, on first use), before the runs that share it.
before(async () => {
  const started = Date.now();
  const run = await runCaptured('bash', [SCRIPT, '--version']);
  assert.equal(run.code, 0, run.stderr);
  process.stderr.write(`python client venv ready in ${Date.now() - started} ms\n`);
});

test('the Python package passes its suite against the embedded server with authentication on: every family through both clients, KAOS drop-in, LangChain, OpenAPI agreement, types', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...KAOS_LIMIT_ENV, ...AUTH_ENV });
  await pytest(
    t,
    {
      MEMSTREAM_URL: base,
      ...PYTHON_AUTH,
      MEMSTREAM_MAX_SESSIONS: String(KAOS_LIMITS.sessions),
      MEMSTREAM_MAX_SESSION_EVENTS: String(KAOS_LIMITS.events),
    },
    ['--ignore=tests/test_client_gateway_retry.py'],
  );
});

test('the Python clients drive every family against the embedded server with authentication off', async (t: TestContext) => {
  const base = await embeddedMemstream(t);
  // The methods are the same code in both clients (the authenticated run drives both): one is enough here.
  await pytest(t, { MEMSTREAM_URL: base, MEMSTREAM_CLIENTS: 'sync' }, FAMILY_SCENARIOS);
});

test('distributed mode: the Python client writes to the gateway and reads from the read API, one scenario per family, and retries a refused write after Retry-After', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'python', AUTH_ENV);
  // One write in flight at a time and no converter behind it: a write is held for the whole sync wait.
  const held = await distributedEnv(t, 'python-held', {
    ...AUTH_ENV,
    GATEWAY_MAX_IN_FLIGHT: '1',
    REQUEST_SYNC_TIMEOUT_MS: '3000',
  });
  const [[gateway, , , , readApi], [heldGateway]] = await Promise.all([
    startServices(t, env, ['ingest-gateway', 'converter', 'indexer', 'extractor', 'read-api']),
    startServices(t, held, ['ingest-gateway']),
  ]);
  await pytest(
    t,
    {
      MEMSTREAM_URL: readApi!,
      MEMSTREAM_GATEWAY_URL: gateway!,
      MEMSTREAM_HELD_GATEWAY_URL: heldGateway!,
      MEMSTREAM_CLIENTS: 'async',
      ...PYTHON_AUTH,
    },
    [...FAMILY_SCENARIOS, 'tests/test_client_gateway_retry.py'],
  );
});
