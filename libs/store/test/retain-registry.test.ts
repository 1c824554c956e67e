import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PARTICIPANTS, RETAIN_ORDER, RETAIN_STAGES, RETENTION_KINDS } from '@memstream/store';
import { partCoverage } from './lifecycle-coverage.js';

/**
 * Retention runs the retain parts the registry gives it, in their kinds' order, so a table's rows
 * age out only if its participant says how: these tests hold every table of conversation data to
 * saying it (or why not), and the order to what the counts of a run rely on.
 */

const stageOf = (table: string) => {
  const found = RETAIN_ORDER.find((p) => p.table === table);
  assert.ok(found, `${table} has a retain part`);
  return RETAIN_STAGES[found.retain.kind];
};

test('every table of conversation data says how retention removes its rows, or why not', async (t) => {
  const { problems, tables } = await partCoverage(t, {
    name: 'retain',
    has: (p) => p.retain !== undefined,
    excused: (p) => p.notRetained !== undefined,
  });
  for (const p of PARTICIPANTS) {
    const columns = tables.get(p.table)?.columns;
    for (const column of p.retain?.agedBy ?? [])
      if (!columns?.has(column)) problems.push(`${p.table}: no column ${column}`);
    const goes = p.retain?.goes;
    for (const taken of goes && 'takes' in goes ? goes.takes : [])
      if (!tables.has(taken)) problems.push(`${p.table}: takes ${taken}, no such table`);
  }
  assert.deepEqual(problems, []);
});

test('each retention kind but soft deletion is one table’s, and its order keeps what a run counts', () => {
  assert.deepEqual(
    RETAIN_ORDER.map((p) => p.retain.kind).sort(),
    RETENTION_KINDS.filter((k) => k !== 'deleted').sort(),
    'one retain part per kind; soft deletion is the eviction’s',
  );
  // a row is counted under the first pass that takes it: what was made from rows goes after them
  const misordered: string[] = [];
  for (const { table, retain } of RETAIN_ORDER) {
    if (!('takes' in retain.goes)) continue;
    for (const taken of retain.goes.takes) {
      const other = RETAIN_ORDER.find((p) => p.table === taken);
      const back = other && 'takes' in other.retain.goes && other.retain.goes.takes.includes(table);
      if (other && !back && stageOf(table) >= stageOf(taken))
        misordered.push(`${table} after ${taken}, which it takes`);
    }
  }
  assert.deepEqual(misordered, []);
  assert.ok(stageOf('messages') < stageOf('kaos_events'), 'message events go with their messages first');
  for (const made of ['episodic_memories', 'memory'])
    assert.ok(stageOf('messages') < stageOf(made), `what was said before ${made}, made of it`);
  // ARK sessions go whole, by a purge: after every pass by row, alone in their stage
  const last = RETAIN_ORDER.at(-1)!;
  assert.equal(last.table, 'ark_sessions');
  assert.ok('groups' in last.retain.goes);
  assert.deepEqual(
    RETAIN_ORDER.filter((p) => 'groups' in p.retain.goes).map((p) => p.table),
    ['ark_sessions'],
    'only ARK sessions go whole',
  );
  assert.equal(last.retain.overridable, false, 'an ARK session has no metadata to shorten its period');
});
