// @ts-check
/**
 * Every process memstream runs, by the name deployments know it by (the image's first argument,
 * compose and Kubernetes service names, `npm run start:*`), and the main that runs it. Most are
 * their folder's `src/main.ts`; the two API processes are entry points of services/api, each a
 * composition of the same family plugins (see runApi). Plain JavaScript, read by the launcher.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** @type {Readonly<Record<string, string>>} the API processes and their mains' names in services/api/src */
const API_PROCESSES = { 'ingest-gateway': 'main-gateway', 'read-api': 'main-read-api' };

/**
 * @param {string} name a process name
 * @param {{ compiled?: boolean }} [options] compiled: the built JavaScript under dist/ rather than the source
 * @returns {string} its main, relative to the repository root
 */
export function mainOf(name, { compiled = false } = {}) {
  const api = API_PROCESSES[name];
  const [dir, ext] = compiled ? ['dist', 'js'] : ['src', 'ts'];
  return api === undefined ? `services/${name}/${dir}/main.${ext}` : `services/api/${dir}/${api}.${ext}`;
}

/** @returns {string[]} every process name: each folder under services/ with a main.ts, and the API processes */
export function processNames() {
  const folders = readdirSync(join(ROOT, 'services')).filter((name) =>
    existsSync(join(ROOT, 'services', name, 'src', 'main.ts')),
  );
  return [...folders, ...Object.keys(API_PROCESSES)].sort();
}
