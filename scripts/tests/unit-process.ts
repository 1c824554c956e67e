/**
 * One process of `npm run test:unit` (see test-unit.ts): each test file named in argv, as a path
 * from the repository root, becomes a suite named after the file, so its tests and its `before` and
 * `after` hooks run together, its `after` hooks (closing its stores and servers) when its own tests
 * end rather than when the process does, and the report says which file a test is in.
 */
import { describe } from 'node:test';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(resolve(root, file)).href);
  });
}
