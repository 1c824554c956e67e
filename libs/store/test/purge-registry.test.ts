import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_PURGE, PARTICIPANTS, PURGE_ORDER, PURGE_STAGES } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { tableFacts } from './catalog.js';
import { partCoverage } from './lifecycle-coverage.js';

/**
 * purgeConversationGroups deletes from the tables the registry gives it, in their stages' order,
 * so a table is purged only if its participant says so: these tests hold every table of
 * conversation data to saying it, and the order to what the purge relies on.
 */

const stageOf = (table: string) => {
  const found = PURGE_ORDER.find((p) => p.table === table);
  assert.ok(found, `${table} has a purge part`);
  return PURGE_STAGES[found.purge.stage];
};

test('every table of conversation data says what purging a group deletes there, or why nothing', async (t) => {
  const { problems, tables } = await partCoverage(t, {
    name: 'purge',
    has: (p) => p.purge !== undefined,
    excused: (p) => p.notPurged !== undefined,
  });
  for (const p of PARTICIPANTS) {
    const columns = tables.get(p.table)?.columns;
    for (const column of [p.purge?.column, p.purge?.storedAt?.column, p.purge?.storedAt?.group])
      if (column !== undefined && !columns?.has(column)) problems.push(`${p.table}: no column ${column}`);
  }
  assert.deepEqual(problems, []);
});

test('a purge deletes what the indexer holds before the search rows, referring rows first, conversations last', async (t) => {
  assert.ok(stageOf('messages') < stageOf('search_items'), 'messages before their search rows');
  assert.ok(stageOf('episodic_memories') < stageOf('search_items'), 'memories before their search rows');
  for (const statistics of ['search_keyword_totals', 'search_keyword_pending'])
    assert.ok(stageOf('search_items') < stageOf(statistics), `search_items, whose writers write ${statistics}, first`);
  assert.equal(PURGE_ORDER.at(-1)?.table, 'conversations');
  assert.deepEqual(
    PURGE_ORDER.filter((p) => p.purge.stage === 'root').map((p) => p.table),
    ['conversations'],
    'conversations alone in the last stage',
  );

  // a row before the row it refers to: a cascade would take it uncounted, a plain key refuse
  const store = await migratedPglite();
  t.after(() => store.close());
  const purged = new Set(PURGE_ORDER.map((p) => p.table));
  const misordered: string[] = [];
  for (const table of (await tableFacts(store)).values())
    for (const key of table.foreignKeys)
      if (purged.has(table.name) && purged.has(key.target) && key.target !== table.name)
        if (stageOf(table.name) >= stageOf(key.target))
          misordered.push(`${key.name}: ${table.name} after ${key.target}`);
  assert.deepEqual(misordered, []);
});

test("each of a purge's counts is taken from exactly one table", () => {
  const counted = PURGE_ORDER.flatMap((p) => (p.purge.counts ? [p.purge.counts] : []));
  assert.deepEqual(
    [...counted].sort(),
    Object.keys(NO_PURGE)
      .filter((k) => k !== 'groups')
      .sort(),
  );
});
