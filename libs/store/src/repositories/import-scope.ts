import { AppError } from '@memstream/errors';
import type { Queryable } from '../store.js';

/**
 * What one import may write to: only the conversations it creates itself. An import goes straight
 * to the store, past every access check, so a record for a conversation the server already held
 * (a membership of alice's group, a message numbered inside her sequence) would grant access or
 * break the conversation without anyone being asked. The conversations an import creates, and
 * their groups, are noted in a table of the import's own transaction (dropped with it); every
 * other record must name only those.
 */
export const CREATED = 'import_created';

/** Opens the import's note of what it creates; call first, inside the import's transaction. */
export async function beginImportScope(q: Queryable): Promise<void> {
  await q.query(`CREATE TEMP TABLE ${CREATED} (id text PRIMARY KEY, group_id text NOT NULL) ON COMMIT DROP`);
  await q.query(`CREATE INDEX ON ${CREATED} (group_id)`);
}

/**
 * True (SQL) when anything is stored under the id, as conversationInUse reads it: a conversation,
 * an ARK session, EverMemOS metadata, or members (a claim made before the first message).
 */
export const idInUse = (id: string) =>
  `(EXISTS (SELECT 1 FROM conversations WHERE id = ${id})
    OR EXISTS (SELECT 1 FROM ark_sessions WHERE session_id = ${id})
    OR EXISTS (SELECT 1 FROM conversation_meta WHERE group_id = ${id})
    OR EXISTS (SELECT 1 FROM conversation_memberships WHERE group_id = ${id}))`;

/** True (SQL) when the group holds anything on the server: a conversation of it (root or fork), or what idInUse finds. */
export const groupInUse = (group: string) =>
  `(${idInUse(group)} OR EXISTS (SELECT 1 FROM conversations WHERE group_id = ${group}))`;

/** True (SQL) when this import created the group. */
export const groupCreated = (group: string) => `EXISTS (SELECT 1 FROM ${CREATED} WHERE group_id = ${group})`;

/** Of the ids given, those of conversations this import created, and of groups it created. */
export async function createdByImport(
  q: Queryable,
  conversations: readonly string[],
  groups: readonly string[],
): Promise<{ conversations: Set<string>; groups: Set<string> }> {
  const { rows } = await q.query<{ kind: 'c' | 'g'; id: string }>(
    `SELECT 'c' AS kind, id FROM ${CREATED} WHERE id = ANY($1::text[])
     UNION ALL
     SELECT DISTINCT 'g', group_id FROM ${CREATED} WHERE group_id = ANY($2::text[])`,
    [[...new Set(conversations)], [...new Set(groups)]],
  );
  const created = { conversations: new Set<string>(), groups: new Set<string>() };
  for (const r of rows) (r.kind === 'c' ? created.conversations : created.groups).add(r.id);
  return created;
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
export async function finishImportScope(q: Queryable): Promise<ImportTouched> {
  // A fork shows its ancestors' messages to its own members: it may name only conversations the
  // import created (an export is ordered by id, so a fork can come before the one it names).
  // Each of the two columns that name a conversation is looked up in the note by a join (Citus
  // refuses a LATERAL unnest() of them beside a distributed table).
  const { rows: forks } = await q.query<{ id: string; named: string }>(
    `SELECT c.id, COALESCE(CASE WHEN a.id IS NULL THEN c.forked_at_conversation_id END,
                           CASE WHEN s.id IS NULL THEN c.fork_source_conversation_id END) AS named
       FROM ${CREATED} n
       JOIN conversations c ON c.group_key = n.group_id AND c.id = n.id
       LEFT JOIN ${CREATED} a ON a.id = c.forked_at_conversation_id
       LEFT JOIN ${CREATED} s ON s.id = c.fork_source_conversation_id
      WHERE (c.forked_at_conversation_id IS NOT NULL AND a.id IS NULL)
         OR (c.fork_source_conversation_id IS NOT NULL AND s.id IS NULL)
      LIMIT 1`,
  );
  if (forks[0])
    throw new AppError(
      'INVALID_PARAMETER',
      `conversation ${forks[0].id} is a fork of ${forks[0].named}, which this import does not create: an import forks only its own conversations`,
      { details: { id: forks[0].id } },
    );
  await q.query(
    `UPDATE conversations c SET next_seq = t.top + 1
     FROM (SELECT m.conversation_id, max(m.seq) AS top FROM messages m JOIN ${CREATED} n ON n.id = m.conversation_id
           GROUP BY m.conversation_id) t
     WHERE c.id = t.conversation_id AND c.next_seq <= t.top`,
  );
  await q.query(
    `UPDATE kaos_sessions s SET next_event = t.top + 1
     FROM (SELECT e.conversation_id, max(e.seq) AS top FROM kaos_events e JOIN ${CREATED} n ON n.id = e.conversation_id
           GROUP BY e.conversation_id) t
     WHERE s.conversation_id = t.conversation_id AND s.next_event <= t.top`,
  );
  const conversations = await q.query<{ id: string }>(`SELECT id FROM ${CREATED} ORDER BY id`);
  const memberships = await q.query<{ groupId: string; userId: string; accessLevel: string }>(
    `SELECT group_id AS "groupId", user_id AS "userId", access_level AS "accessLevel" FROM conversation_memberships
     WHERE group_id IN (SELECT group_id FROM ${CREATED}) ORDER BY group_id, user_id`,
  );
  return { conversations: conversations.rows.map((r) => r.id), memberships: memberships.rows };
}
