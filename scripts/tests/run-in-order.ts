/**
 * Node's test runner over the files given, started in the order given, two (or
 * `--concurrency N`) at once, reported by the spec reporter; exits 1 if any test failed.
 * `node --test` sorts its files by name before it starts them; npm test starts its longest files
 * first (scripts/test.sh), so that none of them runs alone at the end. The files run as
 * `node --test` runs them, each in a process of its own with this process's flags (`--import tsx`).
 * usage: node --import tsx scripts/tests/run-in-order.ts [--concurrency N] FILE...
 */
import { resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { concurrency: { type: 'string', default: '2' } },
  allowPositionals: true,
});
if (positionals.length === 0) throw new Error('name the test files to run');

const stream = run({ files: positionals.map((f) => resolve(f)), concurrency: Number(values.concurrency) });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
