import type { TestContext } from 'node:test';
import { type LifecycleParticipant, PARTICIPANTS, readDistribution } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { type TableFacts, tableFacts } from './catalog.js';

/**
 * What every lifecycle part (purge, retain...) is held to first: each table of the distribution
 * registry has a participant, and each distributed one gives the part or the reason it has none,
 * never both. Resolves with the problems found and the migrated schema's tables, for the part's
 * own checks (its columns exist, and so on).
 */
export async function partCoverage(
  t: TestContext,
  part: {
    readonly name: string;
    readonly has: (p: LifecycleParticipant) => boolean;
    readonly excused: (p: LifecycleParticipant) => boolean;
  },
): Promise<{ problems: string[]; tables: Map<string, TableFacts> }> {
  const store = await migratedPglite();
  t.after(() => store.close());
  const [registry, tables] = await Promise.all([readDistribution(store), tableFacts(store)]);
  const problems: string[] = [];
  for (const { tableName, kind } of registry.values()) {
    const p = PARTICIPANTS.find((x) => x.table === tableName);
    if (!p) problems.push(`${tableName}: no lifecycle participant`);
    else if (kind === 'distributed' && !part.has(p) && !part.excused(p))
      problems.push(`${tableName}: no ${part.name} part, no reason`);
  }
  for (const p of PARTICIPANTS)
    if (part.has(p) && part.excused(p))
      problems.push(`${p.table}: a ${part.name} part and a reason not to ${part.name}`);
  return { problems, tables };
}
