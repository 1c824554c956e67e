import { readFile, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * The end of each generator run as a command: writes every file (path to content), or with
 * `--check` (scripts/test.sh's) writes nothing and exits 1 naming each file on disk that differs
 * from what it would write, and `regenerate`, the command that makes it so.
 */
export async function writeOrCheck(files: ReadonlyMap<string, string>, regenerate: string): Promise<void> {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [path, content] of files) {
    const name = relative(ROOT, path);
    if (check) {
      if ((await readFile(path, 'utf8').catch(() => '')) === content) continue;
      console.error(`stale: ${name} (run ${regenerate})`);
      stale++;
    } else {
      await writeFile(path, content);
      console.log(`wrote ${name}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}
