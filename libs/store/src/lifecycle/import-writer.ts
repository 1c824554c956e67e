import type { ExportDataKind } from '@memstream/schemas';
import type { Queryable } from '../store.js';
import type { ImportRecord, StoredPer, TableImport } from '../participant/table-import.js';
import { type ImportScope, wouldStore } from './import-scope.js';
import { IMPORT_PARTS, PARTICIPANTS } from './registry.js';

/** Each kind's import part (participant/table-import.ts), from the registry. */
const PARTS = new Map<ExportDataKind, TableImport<ExportDataKind>>(
  IMPORT_PARTS.map((part) => [part.kind, part as unknown as TableImport<ExportDataKind>]),
);

/** What became of a batch: records stored, records whose key was already stored, and those refused per conversation. */
export interface BatchOutcome {
  stored: number;
  present: number;
  refused: Map<string, number>;
}

const total = (per: StoredPer) => [...per.values()].reduce((a, b) => a + b, 0);

/**
 * Stores a batch of one kind's records with the ids, sequences and times they carry, within the
 * import's scope (see import-scope): only for conversations the import created. A record whose key
 * is already stored is left as it is (so a second import of the same export adds nothing). A
 * record for any other conversation is not stored: when the server holds it already it counts as
 * present, otherwise as refused under its conversation.
 */
export async function importRecords<K extends ExportDataKind>(
  q: Queryable,
  scope: ImportScope,
  kind: K,
  records: Array<ImportRecord<K>>,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { stored: 0, present: 0, refused: new Map() };
  if (records.length === 0) return outcome;
  const part = PARTS.get(kind) as TableImport<K> | undefined;
  if (!part) throw new Error(`no import part for records of kind ${kind}`);
  await part.checkEvery?.(q, records);
  if (!part.needs) {
    outcome.stored = total(await part.write(q, records, scope));
    if (outcome.stored < records.length) {
      const refused = await creationsRefused(q, part, records);
      outcome.present = records.length - outcome.stored - refused.length;
      for (const id of refused) outcome.refused.set(id, (outcome.refused.get(id) ?? 0) + 1);
    }
    return outcome;
  }
  const needs = records.map((r) => part.needs(r));
  const created = scope.createdOf(
    needs.flatMap((n) => n.conversations),
    needs.flatMap((n) => n.groups),
  );
  const ours: Array<ImportRecord<K>> = [];
  const others: Array<ImportRecord<K>> = [];
  records.forEach((r, i) => {
    const n = needs[i]!;
    const own =
      n.conversations.every((c) => created.conversations.has(c)) && n.groups.every((g) => created.groups.has(g));
    (own ? ours : others).push(r);
  });
  if (ours.length > 0) {
    await part.check?.(q, ours);
    outcome.stored = total(await part.write(q, ours, scope));
    outcome.present = ours.length - outcome.stored;
  }
  if (others.length > 0) {
    // Written and undone: what is already stored is "present", anything more is refused.
    const would = await wouldStore(q, () => part.write(q, others, scope));
    outcome.present += others.length - total(would);
    for (const [owner, n] of would) outcome.refused.set(owner, n);
  }
  return outcome;
}

/**
 * Of a creating kind's records, those whose row is not there after the batch: refused (their id
 * or group is held by what the server had). The others not stored were present (the same export
 * again, or the same record twice).
 */
async function creationsRefused<K extends ExportDataKind>(
  q: Queryable,
  part: TableImport<K> & { creates: (r: ImportRecord<K>) => string },
  records: ReadonlyArray<ImportRecord<K>>,
): Promise<string[]> {
  const ids = records.map((r) => part.creates(r));
  const stored = new Set(await part.holds(q, ids));
  return ids.filter((id) => !stored.has(id));
}

/**
 * Numbers from here up are for records that came without one of a server's (mem0's memories get
 * their episodes' numbers there, from their ids): the server's own numbering does not follow them.
 */
export const UNNUMBERED_FROM = 2 ** 52;

/**
 * Moves each server-made numbering past what the import brought (each part's `numbered` column),
 * so the target's next message, membership removal, episode, summary, KAOS session and stream
 * chunk get numbers of their own.
 */
export async function advanceSequences(q: Queryable): Promise<void> {
  for (const { table, import: part } of PARTICIPANTS) {
    const column = part?.numbered;
    if (column === undefined) continue;
    await q.query(
      `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), m)
       FROM (SELECT max(${column}) AS m FROM ${table} WHERE ${column} < ${UNNUMBERED_FROM}) x
       WHERE m IS NOT NULL AND m > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${seqName(table, column)})`,
    );
  }
}

const seqName = (table: string, column: string) => `${table}_${column}_seq`;
