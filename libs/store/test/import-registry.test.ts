import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExportRecord } from '@memstream/schemas';
import { PARTICIPANTS } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

/**
 * The import stores each record through its table's part (participant/table-import.ts), found by
 * the record's kind: these tests hold every kind of the export format to one part, on the table
 * that exports it, and each numbered column to a sequence advanceSequences can move.
 */

const parts = PARTICIPANTS.flatMap((p) => (p.import ? [p.import, ...(p.import.carried ?? [])] : []));

test('every kind of the export is stored again by one import part, on the table that exports it', () => {
  const kinds = ExportRecord.options.map((o) => o.shape.kind.options[0]).filter((k) => k !== 'header' && k !== 'end');
  assert.deepEqual(parts.map((part) => part.kind).sort(), [...kinds].sort(), 'one part per kind');
  const problems: string[] = [];
  for (const p of PARTICIPANTS) {
    if (p.export && p.import?.kind !== p.export.kind)
      problems.push(`${p.table}: exports ${p.export.kind}, imports ${p.import?.kind ?? 'nothing'}`);
    if (p.import && !p.export) problems.push(`${p.table}: an import part and no export`);
  }
  assert.deepEqual(problems, []);
});

test('only the kinds that create what others need find ids in use, and each says which of its ids are stored', () => {
  assert.deepEqual(
    parts.filter((part) => part.creates !== undefined).map((part) => part.kind),
    ['conversation', 'ark_session'],
  );
  assert.deepEqual(
    parts.filter((part) => part.holds !== undefined).map((part) => part.kind),
    ['conversation', 'ark_session', 'conversation_meta', 'membership'],
    'the tables conversationInUse reads, in its order',
  );
});

test('each numbered column is numbered by its own sequence, which advanceSequences names', async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  const numbered = PARTICIPANTS.flatMap((p) => (p.import?.numbered ? [[p.table, p.import.numbered] as const] : []));
  assert.equal(numbered.length, 6);
  for (const [table, column] of numbered) {
    const { rows } = await store.query<{ seq: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS seq', [
      table,
      column,
    ]);
    assert.equal(rows[0]?.seq, `public.${table}_${column}_seq`, `${table}.${column}`);
  }
});
