/**
 * Loaded with `--import` into a process that must run compiled JavaScript only. A resolve hook
 * sees every module any thread of it asks for (workers inherit the flag): tsx, esbuild or a
 * TypeScript file each writes a TYPESCRIPT-TRIPWIRE line to stderr and fails that import. Plain
 * JavaScript, since nothing here may need tsx to load. Test-only: nothing in production loads it.
 */
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const tooling = /^(tsx|esbuild)(\\/|$)/.test(specifier) || /\\/node_modules\\/(tsx|esbuild|@esbuild)\\//.test(resolved.url);
  if (tooling || /\\.[cm]?ts$/.test(new URL(resolved.url).pathname)) {
    process.stderr.write('TYPESCRIPT-TRIPWIRE ' + specifier + ' -> ' + resolved.url + '\\n');
    throw new Error('TypeScript tooling or source loaded at run time: ' + specifier);
  }
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
