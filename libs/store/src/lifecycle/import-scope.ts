import { AppError } from '@memstream/errors';
import type { Queryable } from '../store.js';
import type { ImportContext } from '../participant/table-import.js';

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
 * Of `ids`, those under which anything is stored, as conversationInUse reads it: a conversation,
 * an ARK session, EverMemOS metadata, or members (a claim made before the first message). A
 * statement per table, read before the import's statement that creates: Citus plans no lookup
 * correlated with the batch's rows.
 */
export async function idsInUse(q: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const used = new Set<string>();
  if (ids.length === 0) return used;
  for (const sql of [
    'SELECT id FROM conversations WHERE id = ANY($1::text[])',
    'SELECT session_id AS id FROM ark_sessions WHERE session_id = ANY($1::text[])',
    'SELECT DISTINCT group_id AS id FROM conversation_meta WHERE group_id = ANY($1::text[])',
    'SELECT DISTINCT group_id AS id FROM conversation_memberships WHERE group_id = ANY($1::text[])',
  ]) {
    const { rows } = await q.query<{ id: string }>(sql, [[...new Set(ids)]]);
    for (const r of rows) used.add(r.id);
  }
  return used;
}

/** Of `groups`, those holding anything on the server: a conversation of the group (root or fork), or what idsInUse finds. */
export async function groupsInUse(q: Queryable, groups: readonly string[]): Promise<Set<string>> {
  const used = await idsInUse(q, groups);
  if (groups.length === 0) return used;
  const { rows } = await q.query<{ id: string }>(
    'SELECT DISTINCT group_id AS id FROM conversations WHERE group_id = ANY($1::text[])',
    [[...new Set(groups)]],
  );
  for (const r of rows) used.add(r.id);
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
  readonly memberships: Array<{ groupId: string; userId: string; accessLevel: string }>;
}

/**
 * Ends what the import created in a state every later write can follow: each conversation's
 * `next_seq` past its highest message, each KAOS session's next event past its highest event (a
 * file may carry numbers its counters do not cover). Answers what it created and granted, for the
 * audit log.
 */
export async function finishImportScope(q: Queryable, scope: ImportScope): Promise<ImportTouched> {
  const ids = scope.ids();
  const groups = scope.groups();
  // A fork shows its ancestors' messages to its own members: it may name only conversations the
  // import created (an export is ordered by id, so a fork can come before the one it names).
  // The created conversations are joined by their whole key, group and id (the shard column first).
  const { rows: forks } = await q.query<{ id: string; named: string }>(
    `SELECT c.id, COALESCE(CASE WHEN c.forked_at_conversation_id <> ALL($1::text[]) THEN c.forked_at_conversation_id END,
                           CASE WHEN c.fork_source_conversation_id <> ALL($1::text[]) THEN c.fork_source_conversation_id END) AS named
       FROM conversations c
      WHERE c.group_key = ANY($2::text[]) AND c.id = ANY($1::text[])
        AND (c.forked_at_conversation_id <> ALL($1::text[]) OR c.fork_source_conversation_id <> ALL($1::text[]))
      ORDER BY c.id LIMIT 1`,
    [ids, groups],
  );
  if (forks[0])
    throw new AppError(
      'INVALID_PARAMETER',
      `conversation ${forks[0].id} is a fork of ${forks[0].named}, which this import does not create: an import forks only its own conversations`,
      { details: { id: forks[0].id } },
    );
  await q.query(
    `UPDATE conversations c SET next_seq = t.top + 1
     FROM (SELECT m.group_key, m.conversation_id, max(m.seq) AS top FROM messages m
            WHERE m.group_key = ANY($2::text[]) AND m.conversation_id = ANY($1::text[])
            GROUP BY m.group_key, m.conversation_id) t
     WHERE c.group_key = t.group_key AND c.id = t.conversation_id AND c.next_seq <= t.top`,
    [ids, groups],
  );
  await q.query(
    `UPDATE kaos_sessions s SET next_event = t.top + 1
     FROM (SELECT e.conversation_id, max(e.seq) AS top FROM kaos_events e WHERE e.conversation_id = ANY($1::text[])
           GROUP BY e.conversation_id) t
     WHERE s.conversation_id = t.conversation_id AND s.next_event <= t.top`,
    [ids],
  );
  const memberships = await q.query<{ groupId: string; userId: string; accessLevel: string }>(
    `SELECT group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel" FROM conversation_memberships
     WHERE group_id = ANY($1::text[]) ORDER BY group_id, user_id`,
    [groups],
  );
  return { conversations: ids, memberships: memberships.rows };
}
