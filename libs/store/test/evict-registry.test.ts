import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVICT_ORDER, EVICTABLE_RESOURCES, NO_PURGE, PARTICIPANTS, PURGE_ORDER } from '@memstream/store';
import { partCoverage } from './lifecycle-coverage.js';

/**
 * An eviction job runs the evict parts the registry gives it, in their resource types' order, so
 * soft-deleted data is evicted only where its table says how: these tests hold every table of
 * conversation data to saying it (or why not), and each resource type to one table.
 */

test('every table of conversation data says how eviction takes its rows, or why not', async (t) => {
  const { problems, tables } = await partCoverage(t, {
    name: 'evict',
    has: (p) => p.evict !== undefined,
    excused: (p) => p.notEvicted !== undefined,
  });
  for (const p of PARTICIPANTS) {
    const goes = p.evict?.goes;
    if (goes === undefined || 'groups' in goes) continue;
    const columns = tables.get(p.table)?.columns;
    for (const column of [goes.agedBy]) if (!columns?.has(column)) problems.push(`${p.table}: no column ${column}`);
  }
  assert.deepEqual(problems, []);
});

test('each resource type is one table’s, groups first, and rows are counted apart', () => {
  assert.deepEqual(
    EVICT_ORDER.map((p) => p.evict.resource),
    [...EVICTABLE_RESOURCES],
    'one evict part per resource type, in its order',
  );
  // groups go whole through the purge; a batch gives what room they leave to the rows after them
  assert.deepEqual(
    EVICT_ORDER.filter((p) => 'groups' in p.evict.goes).map((p) => p.table),
    ['conversations'],
    'only the conversations find groups to evict',
  );
  assert.ok('groups' in EVICT_ORDER[0]!.evict.goes, 'groups before rows');
  // a group evicted while written to since its deletion would lose what was stored: some table says when
  assert.ok(
    PURGE_ORDER.some((p) => p.purge.storedAt !== undefined && p.purge.by === 'conversations'),
    'a purge part keyed by conversation says when its rows were stored',
  );
  const counted = EVICT_ORDER.flatMap((p) => ('counts' in p.evict.goes ? [p.evict.goes.counts] : []));
  for (const count of counted) assert.ok(count in NO_PURGE, `${count} is a count of the purge`);
  assert.equal(new Set(counted).size, counted.length, 'each count from one table');
});
