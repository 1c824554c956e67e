/**
 * `npm run test:unit`: every test file that needs no infrastructure (see test-files.ts), with no
 * type check and nothing started. KAFKA_BROKERS, DATABASE_URL and REDIS_URL are removed from the
 * tests' environment, so a file misclassified as a unit test fails rather than using a server that
 * happens to be running. Arguments after `--` go to node's test runner (e.g. --test-only).
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { infrastructureOf, testFiles } from './test-files.js';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const files = testFiles(root).filter((file) => infrastructureOf(root, file) === undefined);
const env = { ...process.env };
for (const key of ['KAFKA_BROKERS', 'DATABASE_URL', 'REDIS_URL']) delete env[key];

const runner = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...process.argv.slice(2), ...files],
  { cwd: root, env, stdio: 'inherit' },
);
runner.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
