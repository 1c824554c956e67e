// @ts-check
/**
 * `npm start` and the `start:*` scripts: runs a service's compiled main, in this very process, so
 * a signal or `kill -9` of the process group reaches the server itself. When a source changed
 * since the last build it compiles first, in a child that exits before the server starts (the
 * compiler, tens of MiB, never enters the server's heap). Up to date, the check costs a few
 * milliseconds: a stat per source file.
 *
 *   node --conditions=memstream-dist --enable-source-maps scripts/start.js <service> [args...]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, sourceFiles, staleReason } from './build/sources.js';
import { mainOf } from './processes.js';

const [service = 'all-in-one', ...args] = process.argv.slice(2);
const main = join(ROOT, mainOf(service, { compiled: true }));
const stale = staleReason(sourceFiles());
if (stale !== undefined) {
  console.error(`[build] ${stale}: compiling before start`);
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build/build.js')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
if (!existsSync(main)) {
  console.error(`start: no service '${service}' (no ${main})`);
  process.exit(64);
}
// The compiled code imports the workspace packages by name; without the condition those resolve
// to their TypeScript sources, which plain node cannot run. Said here rather than as a stack trace.
if (!import.meta.resolve('@memstream/config').endsWith('/dist/index.js')) {
  console.error('start: run with node --conditions=memstream-dist (see the start script in package.json)');
  process.exit(64);
}
// The service sees its own arguments as if it had been started directly.
process.argv = [process.argv[0] ?? process.execPath, main, ...args];
await import(pathToFileURL(main).href);
