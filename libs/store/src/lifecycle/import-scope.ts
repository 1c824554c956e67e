import type { Queryable } from '../store.js';
import type { ImportContext, ImportGrant } from '../participant/table-import.js';
import { IMPORT_PARTS } from './registry.js';

/**
 * What one import may write to: only the conversations it creates itself. An import goes straight
 * to the store, past every access check, so a record for a conversation the server already held
 * (a membership of alice's group, a message numbered inside her sequence) would grant access or
 * break the conversation without anyone being asked. The conversations an import creates (and ARK
 * streams alone), with their groups, are noted here as their statements return them, for the
 * import's transaction; every other record must name only those. Held by the import, not in a
 * temporary table: Citus joins no local table to distributed ones in a write.
 */
export class ImportScope implements ImportContext {
  /** conversation (or ARK session) id -> its group */
  private readonly created = new Map<string, string>();

  /** Notes what a creating statement stored. */
  note(rows: Iterable<{ id: string; group: string }>): void {
    for (const r of rows) if (!this.created.has(r.id)) this.created.set(r.id, r.group);
  }

  /** The ids created so far, in id order. */
  ids(): string[] {
    return [...this.created.keys()].sort();
  }

  /** The groups created so far (each once). */
  groups(): string[] {
    return [...new Set(this.created.values())];
  }

  /** Of the ids given, those of conversations this import created, and of groups it created. */
  createdOf(
    conversations: readonly string[],
    groups: readonly string[],
  ): { conversations: Set<string>; groups: Set<string> } {
    const ours = new Set(this.created.values());
    return {
      conversations: new Set(conversations.filter((c) => this.created.has(c))),
      groups: new Set(groups.filter((g) => ours.has(g))),
    };
  }

  /** Of `ids`, those under which any table holds something (idsInUse). */
  inUse(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
    return idsInUse(q, ids);
  }
}

/** Opens the import's note of what it creates; the import's transaction carries it to the end. */
export function beginImportScope(): ImportScope {
  return new ImportScope();
}

/**
 * Of `ids`, those under which anything is stored, as conversationInUse reads it: each table's
 * `holds` (a conversation, an ARK session, EverMemOS metadata, members: a claim made before the
 * first message). A statement per table, read before the import's statement that creates: Citus
 * plans no lookup correlated with the batch's rows.
 */
async function idsInUse(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const used = new Set<string>();
  if (ids.length === 0) return used;
  for (const part of IMPORT_PARTS) {
    if (!part.holds) continue;
    for (const id of await part.holds(q, ids)) used.add(id);
  }
  return used;
}

/**
 * Runs `write` and undoes it, answering what it returned: how many records of a conversation the
 * import did not create it would have stored. None means the server holds them already (the same
 * export sent again); any means the file would have changed that conversation.
 */
export async function wouldStore<T>(q: Queryable, write: () => Promise<T>): Promise<T> {
  await q.query('SAVEPOINT import_probe');
  try {
    return await write();
  } finally {
    await q.query('ROLLBACK TO SAVEPOINT import_probe');
    await q.query('RELEASE SAVEPOINT import_probe');
  }
}

export interface ImportTouched {
  /** The conversations (and ARK sessions) the import created, in id order. */
  readonly conversations: string[];
  /** Every membership of the groups it created: each one the import granted. */
  readonly memberships: ImportGrant[];
}

/**
 * Ends what the import created in a state every later write can follow, each table's `finish`
 * in the registry's order (a conversation's `next_seq` past its highest message, a KAOS session's
 * next event past its highest event: a file may carry numbers its counters do not cover; a fork
 * only of what the import created). Answers what it created and granted, for the audit log.
 */
export async function finishImportScope(q: Queryable, scope: ImportScope): Promise<ImportTouched> {
  const created = { ids: scope.ids(), groups: scope.groups() };
  for (const part of IMPORT_PARTS) await part.finish?.(q, created);
  const memberships: ImportGrant[] = [];
  for (const part of IMPORT_PARTS) if (part.granted) memberships.push(...(await part.granted(q, created.groups)));
  return { conversations: created.ids, memberships };
}
