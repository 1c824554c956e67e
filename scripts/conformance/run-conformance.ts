/**
 * Schemathesis's conformance checks against the embedded server with authentication on: the
 * document `openapi.json` describes must be exactly as strict as the server (valid requests
 * accepted, invalid ones refused, undeclared methods 405, answers as documented, no 500).
 * `npm run conformance` runs the long search; `npm test` runs a bounded one (test/conformance).
 * Usage: node --import tsx scripts/conformance/run-conformance.ts [--max-examples N] [--seed S]
 *   [--phases examples,coverage,fuzzing,stateful] [--checks a,b] (defaults: every phase, every check below)
 *   [--paths REGEX] (only the operations whose path matches, to look at one closely)
 * Exits non-zero on a conformance failure; the failures by check are printed at the end.
 * CONFORMANCE_DOCUMENT names another document to check the server against (an older one, to see
 * what a change to the document fixed).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { loadConfig } from '@memstream/config';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { allInOneEnv, startEmbedded } from '@memstream/all-in-one';

const ALL_CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'unsupported_method',
].join(',');

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const { values } = parseArgs({
  options: {
    'max-examples': { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    phases: { type: 'string', default: 'examples,coverage,fuzzing,stateful' },
    checks: { type: 'string', default: ALL_CHECKS },
    paths: { type: 'string' },
  },
});
const st = execFileSync('bash', [join(root, 'scripts/conformance/install-schemathesis.sh')], {
  encoding: 'utf8',
}).trim();

const secret = 'conformance-secret-of-at-least-32-characters';
const dataDir = await mkdtemp(join(tmpdir(), 'memstream-conformance-'));
const log = createLogger({ service: 'conformance', level: 'silent' });
const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000, exit: () => undefined });
const config = loadConfig(allInOneEnv, {
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  AUTH_JWT_SECRET: secret,
  REQUEST_SYNC_TIMEOUT_MS: '2000',
});
const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics() });
lifecycle.markReady();
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .setSubject('conformance')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(new TextEncoder().encode(secret));

const code = await new Promise<number>((done) => {
  const run = spawn(
    st,
    [
      '--config-file',
      join(root, 'scripts/conformance/schemathesis.toml'),
      'run',
      process.env['CONFORMANCE_DOCUMENT'] ?? join(root, 'openapi.json'),
      '--url',
      `http://127.0.0.1:${port}`,
      '-H',
      `Authorization: Bearer ${token}`,
      '--checks',
      values.checks,
      '--phases',
      values.phases,
      '--max-examples',
      values['max-examples'],
      '--seed',
      values.seed,
      '--generation-deterministic',
      '--no-color',
      ...(values.paths ? ['--include-path-regex', values.paths] : []),
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        SCHEMATHESIS_TELEMETRY: 'false',
        // writes newline-delimited JSON bodies, which Schemathesis cannot by itself
        SCHEMATHESIS_HOOKS: join(root, 'scripts/conformance/hooks.py'),
      },
    },
  );
  run.on('exit', (c) => done(c ?? 1));
});
await lifecycle.shutdown();
await rm(dataDir, { recursive: true, force: true });
process.exit(code);
