/**
 * `npm run test:unit`: every test file that needs no infrastructure (see test-files.ts), with no
 * type check and nothing started. KAFKA_BROKERS, DATABASE_URL and REDIS_URL are removed from the
 * tests' environment, so a file misclassified as a unit test fails rather than using a server that
 * happens to be running. Arguments after `--` go to node's test runner (e.g. --test-only,
 * --test-name-pattern=...).
 *
 * The files run in one process per core (unit-process.ts), not one process per file as
 * `node --test` runs them: starting a process and loading the modules a file imports again cost
 * more than the tests themselves (measured in docs/development.md). So a file shares its process
 * with other files, in `npm test` too (both of its passes run this). A test that only passes beside
 * others, or one that breaks another, shows with `--isolated`, which runs every file alone.
 *
 * Files are dealt to the processes longest first by how long each took the last time (kept in
 * .cache/unit-timings.json; a file not timed yet counts as a second), and the output of each
 * process is printed whole, the first live and the others once those before them end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { infrastructureOf, testFiles } from './test-files.js';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const files = testFiles(root).filter((file) => infrastructureOf(root, file) === undefined);
const env = { ...process.env };
for (const key of ['KAFKA_BROKERS', 'DATABASE_URL', 'REDIS_URL']) delete env[key];

const args = process.argv.slice(2);
const isolated = args.includes('--isolated');
const runnerArgs = args.filter((a) => a !== '--isolated' && a !== '--');

if (isolated) {
  const runner = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', ...runnerArgs, ...files],
    { cwd: root, env, stdio: 'inherit' },
  );
  runner.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  process.exitCode = await inProcesses();
}

async function inProcesses(): Promise<number> {
  const timingsPath = resolve(root, '.cache/unit-timings.json');
  mkdirSync(dirname(timingsPath), { recursive: true });
  const timings = readTimings(timingsPath);
  const n = Math.max(1, Math.min(availableParallelism(), files.length));
  const groups = deal(files, (f) => timings[f] ?? 1000, n);
  const reporter = runnerArgs.some((a) => a.startsWith('--test-reporter')) ? [] : ['--test-reporter=spec'];
  const runs = groups.map((group, i) => {
    const timingsOut = resolve(root, `.cache/unit-timings.${process.pid}.${i}.json`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', ...reporter, ...runnerArgs, resolve(root, 'scripts/tests/unit-process.ts'), ...group],
      { cwd: root, env: { ...env, MEMSTREAM_UNIT_TIMINGS: timingsOut }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const held: Buffer[] = [];
    let live = false;
    const take = (chunk: Buffer) => {
      if (live) process.stdout.write(chunk);
      else held.push(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const exit = new Promise<number>((done) => child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0))));
    const goLive = () => {
      process.stdout.write(Buffer.concat(held));
      live = true;
    };
    return { size: group.length, timingsOut, goLive, exit };
  });
  let code = 0;
  for (const [i, run] of runs.entries()) {
    process.stdout.write(`\n── unit tests, process ${i + 1} of ${runs.length}: ${run.size} files ──\n`);
    run.goLive();
    code ||= await run.exit;
    Object.assign(timings, readTimings(run.timingsOut));
    rmSync(run.timingsOut, { force: true });
  }
  const current = Object.fromEntries(files.filter((f) => f in timings).map((f) => [f, timings[f]]));
  writeFileSync(timingsPath, `${JSON.stringify(current, null, 1)}\n`);
  return code;
}

/** The times the last run took per file, in milliseconds; none when there was no last run. */
function readTimings(path: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** `items` dealt into `n` groups of about equal weight, heaviest first to the lightest group. */
function deal<T>(items: readonly T[], weight: (item: T) => number, n: number): T[][] {
  const groups = Array.from({ length: n }, () => ({ items: [] as T[], total: 0 }));
  for (const item of [...items].sort((a, b) => weight(b) - weight(a))) {
    const lightest = groups.reduce((min, g) => (g.total < min.total ? g : min));
    lightest.items.push(item);
    lightest.total += weight(item);
  }
  return groups.map((g) => g.items);
}
