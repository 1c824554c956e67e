/**
 * The arrow lint (`npm run lint`): the rules are in scripts/arrows/find-problems.ts. Exits 1
 * listing every problem.
 */
import { dirname, resolve } from 'node:path';
import { findProblems } from './arrows/find-problems.js';

const problems = findProblems(resolve(dirname(new URL(import.meta.url).pathname), '..'));
if (problems.length > 0) {
  console.error(`arrow lint: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  'arrow lint: packages imported by name only; services import only libs; libs import no service and no cycle; no unused dependency; jobs run only in governance',
);
