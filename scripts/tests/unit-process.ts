/**
 * One process of `npm run test:unit` (see test-unit.ts): each test file named in argv, as a path
 * from the repository root, becomes a suite named after the file, so its tests and its `before` and
 * `after` hooks run together, its `after` hooks (closing its stores and servers) when its own tests
 * end rather than when the process does, and the report says which file a test is in.
 *
 * How long each file's tests and hooks ran is written, as JSON, to the file named by
 * MEMSTREAM_UNIT_TIMINGS when it is set. A suite's own duration would not do: every file is
 * imported when its suite is declared, so the first suite to run would be charged for them all.
 */
import { writeFileSync } from 'node:fs';
import { after, before, describe } from 'node:test';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const timings: Record<string, number> = {};

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    let started = 0;
    before(() => {
      started = performance.now();
    });
    await import(pathToFileURL(resolve(root, file)).href);
    // declared after the file's own hooks, so it runs after them
    after(() => {
      timings[file] = Math.round(performance.now() - started);
    });
  });
}

const out = process.env.MEMSTREAM_UNIT_TIMINGS;
if (out) process.on('exit', () => writeFileSync(out, JSON.stringify(timings)));
