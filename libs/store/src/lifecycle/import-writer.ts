import type { ExportDataKind, ExportDataRecord } from '@memstream/schemas';
import type { Queryable } from '../store.js';
import { groupsInUse, idsInUse, type ImportScope, wouldStore } from './import-scope.js';
import {
  ARK_CHUNKS,
  ARK_SESSIONS,
  CONVERSATION_META,
  CONVERSATIONS,
  EPISODES,
  EPISODIC_MEMORIES,
  KAOS_EVENTS,
  KAOS_SESSIONS,
  MEMBERSHIPS,
  MEMBERSHIP_REMOVALS,
  MESSAGES,
  OWNERSHIP_TRANSFERS,
  SUMMARIES,
  refuseUnknownConversations,
} from './import-statements.js';
import {
  inConversation,
  inGroup,
  inserted,
  insertedCreating,
  refuseTakenIds,
  rows,
  withIdsTaken,
} from '../participant/import-rows.js';
import type { StoredPer } from '../participant/table-import.js';
import { memorySearchText, messageSearchText } from '../tables/search/search-text.js';

type Of<K extends ExportDataKind> = Extract<ExportDataRecord, { kind: K }>;

/**
 * How one kind is stored. `needs` says what a record belongs to: the conversation (or group) it is
 * counted under, and the conversations and groups the import must have created for it to be stored.
 * Kinds without `needs` create what they
 * store (a conversation; an ARK stream alone), decide in their statement and note it in the
 * import's scope; they are never written and undone (wouldStore), which would leave the note
 * behind. `check` refuses the whole import (a server-made id taken), before storing.
 */
interface KindWriter<K extends ExportDataKind> {
  readonly needs?: (r: Of<K>) => { owner: string; conversations: string[]; groups: string[] };
  readonly check?: (q: Queryable, records: Array<Of<K>>) => Promise<void>;
  readonly write: (q: Queryable, records: Array<Of<K>>, scope: ImportScope) => Promise<StoredPer>;
}

// A fork changes its own conversation's row only while that row is not a fork yet.
const FORK = `WITH upd AS (
   UPDATE conversations c SET forked_at_conversation_id = r."forkedAtConversationId",
          forked_at_message_id = r."forkedAtMessageId", fork_source_conversation_id = r."sourceConversationId",
          fork_source_seq = r."sourceSeq"
   FROM ${rows(`"conversationId" text, "forkedAtConversationId" text, "forkedAtMessageId" text,
                "sourceConversationId" text, "sourceSeq" bigint`)}
   WHERE c.id = r."conversationId" AND c.forked_at_conversation_id IS NULL AND c.fork_source_conversation_id IS NULL
   RETURNING c.id)
 SELECT id AS owner, count(*)::int AS n FROM upd GROUP BY id`;

/*
 * What a statement would otherwise look up beside the batch's rows, read first and carried on each
 * record: Citus plans no subquery correlated with the rows of the batch's CTE.
 */

/** Each record with `groupKey`, its conversation's group (its own id when the conversation is not stored). */
async function withGroups<R extends { conversationId: string }>(q: Queryable, records: readonly R[]) {
  const { rows: found } = await q.query<{ id: string; group_key: string }>(
    'SELECT id, group_key FROM conversations WHERE id = ANY($1::text[])',
    [[...new Set(records.map((r) => r.conversationId))]],
  );
  const groupOf = new Map(found.map((r) => [r.id, r.group_key]));
  return records.map((r) => ({ ...r, groupKey: groupOf.get(r.conversationId) ?? r.conversationId }));
}

/**
 * Each summary with `baseKept`: the summary it was built on is stored in its group, or comes in
 * the same batch for the same conversation (SUMMARIES keeps the base only then).
 */
async function withBasesKept<R extends { id: number; conversationId: string; baseId?: number | null | undefined }>(
  q: Queryable,
  records: ReadonlyArray<R & { groupKey: string }>,
) {
  const bases = [...new Set(records.flatMap((r) => (r.baseId == null ? [] : [r.baseId])))];
  const { rows: found } = await q.query<{ memory_id: string; group_key: string }>(
    'SELECT memory_id::text, group_key FROM memory WHERE memory_id = ANY($1::int8[])',
    [bases],
  );
  const stored = new Set(found.map((r) => `${r.group_key}\u0000${r.memory_id}`));
  const inBatch = new Set(records.map((r) => `${r.conversationId}\u0000${r.id}`));
  return records.map((r) => ({
    ...r,
    baseKept:
      r.baseId != null &&
      (stored.has(`${r.groupKey}\u0000${r.baseId}`) || inBatch.has(`${r.conversationId}\u0000${r.baseId}`)),
  }));
}

const WRITERS: { [K in ExportDataKind]: KindWriter<K> } = {
  conversation: {
    write: async (q, records, scope) => {
      const groupOf = (r: Of<'conversation'>) => r.groupId ?? r.id;
      const ids = await idsInUse(
        q,
        records.map((r) => r.id),
      );
      const groups = await groupsInUse(q, records.map(groupOf));
      const marked = records.map((r) => ({ ...r, idInUse: ids.has(r.id), groupInUse: groups.has(groupOf(r)) }));
      return insertedCreating(q, CONVERSATIONS, marked, scope, scope.groups());
    },
  },
  // A fork reads its ancestors' messages: finishImportScope holds them to the import's own conversations.
  fork: { needs: inConversation, write: (q, records) => inserted(q, FORK, records) },
  conversation_meta: {
    needs: inGroup,
    write: async (q, records) =>
      inserted(
        q,
        CONVERSATION_META,
        await withIdsTaken(
          q,
          'conversation_meta',
          records.map((r) => ({
            ...r,
            sceneDesc: r.sceneDesc ?? null,
            userDetails: r.userDetails ?? {},
            tags: r.tags ?? [],
          })),
        ),
      ),
  },
  membership: { needs: inGroup, write: (q, records) => inserted(q, MEMBERSHIPS, records) },
  membership_removal: {
    needs: inGroup,
    check: (q, records) =>
      refuseTakenIds(
        q,
        `SELECT x.id FROM ${rows(`id bigint, "groupId" text, "userId" text`)}
         JOIN conversation_membership_removals x ON x.id = r.id WHERE NOT (x.group_id = r."groupId" AND x.user_id = r."userId") LIMIT 1`,
        records,
        'membership removal',
      ),
    write: (q, records) => inserted(q, MEMBERSHIP_REMOVALS, records),
  },
  ownership_transfer: {
    needs: (r) => ({ owner: r.conversationId, conversations: [r.conversationId], groups: [r.groupId] }),
    write: async (q, records) =>
      inserted(q, OWNERSHIP_TRANSFERS, await withIdsTaken(q, 'conversation_ownership_transfers', records)),
  },
  message: {
    needs: inConversation,
    check: (q, records) =>
      refuseTakenIds(
        q,
        `SELECT m.id FROM ${rows(`id bigint, "conversationId" text, seq bigint`)}
         JOIN messages m ON m.id = r.id WHERE NOT (m.conversation_id = r."conversationId" AND m.seq = r.seq) LIMIT 1`,
        records,
        'message',
      ),
    write: async (q, records) =>
      inserted(
        q,
        MESSAGES,
        (await withGroups(q, records)).map((r) => ({
          ...r,
          searchText: messageSearchText({ ...r, sender_name: r.senderName, sender_id: r.senderId }),
        })),
      ),
  },
  episode: {
    needs: inConversation,
    check: (q, records) =>
      refuseTakenIds(
        q,
        `SELECT e.id FROM ${rows(`id bigint, "conversationId" text, "startSeq" bigint`)}
         JOIN episodes e ON e.id = r.id WHERE NOT (e.conversation_id = r."conversationId" AND e.start_seq = r."startSeq") LIMIT 1`,
        records,
        'episode',
      ),
    write: async (q, records) => inserted(q, EPISODES, await withGroups(q, records)),
  },
  episodic_memory: {
    needs: inConversation,
    write: async (q, records) =>
      inserted(
        q,
        EPISODIC_MEMORIES,
        await withIdsTaken(
          q,
          'episodic_memories',
          (await withGroups(q, records)).map((r) => ({ ...r, searchText: memorySearchText(r) })),
        ),
      ),
  },
  summary: {
    needs: inConversation,
    check: (q, records) =>
      refuseTakenIds(
        q,
        `SELECT m.memory_id AS id FROM ${rows(`id bigint, "conversationId" text, "startSequence" int`)}
         JOIN memory m ON m.memory_id = r.id
         WHERE NOT (m.conversation_id = r."conversationId" AND m.start_sequence = r."startSequence") LIMIT 1`,
        records,
        'summary',
      ),
    write: async (q, records) => inserted(q, SUMMARIES, await withBasesKept(q, await withGroups(q, records))),
  },
  kaos_session: {
    needs: inConversation,
    // One live session per agent and session id (kaos_session_names): a name the server's own
    // session holds, or two sessions of one name in the file, refuse the import.
    check: (q, records) =>
      refuseTakenIds(
        q,
        `SELECT x.id FROM (
           SELECT r."sessionId" AS id, r.agent, r."conversationId" AS conversation,
                  min(r."conversationId") OVER w AS first, max(r."conversationId") OVER w AS last
           FROM ${rows(`agent text, "sessionId" text, "conversationId" text`)}
           WINDOW w AS (PARTITION BY r.agent, r."sessionId")) x
         LEFT JOIN kaos_session_names n ON n.agent = x.agent AND n.session_id = x.id
         WHERE x.first <> x.last OR n.conversation_id <> x.conversation LIMIT 1`,
        records,
        'KAOS session',
      ),
    write: (q, records) => inserted(q, KAOS_SESSIONS, records),
  },
  kaos_event: { needs: inConversation, write: (q, records) => inserted(q, KAOS_EVENTS, records) },
  ark_session: {
    write: async (q, records, scope) => {
      const used = await idsInUse(
        q,
        records.map((r) => r.sessionId),
      );
      const marked = records.map((r) => ({ ...r, idInUse: used.has(r.sessionId) }));
      return insertedCreating(q, ARK_SESSIONS, marked, scope, scope.ids());
    },
  },
  ark_chunk: {
    needs: (r) => ({ owner: r.sessionId, conversations: [r.sessionId], groups: [] }),
    write: (q, records) => inserted(q, ARK_CHUNKS, records),
  },
};

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
  records: Array<Of<K>>,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { stored: 0, present: 0, refused: new Map() };
  if (records.length === 0) return outcome;
  const writer = WRITERS[kind] as KindWriter<K>;
  if (kind === 'message') await refuseUnknownConversations(q, records as Array<Of<'message'>>);
  if (!writer.needs) {
    outcome.stored = total(await writer.write(q, records, scope));
    if (outcome.stored < records.length) {
      const refused = await creationsRefused(q, kind, records);
      outcome.present = records.length - outcome.stored - refused.length;
      for (const id of refused) outcome.refused.set(id, (outcome.refused.get(id) ?? 0) + 1);
    }
    return outcome;
  }
  const needs = records.map((r) => writer.needs!(r));
  const created = scope.createdOf(
    needs.flatMap((n) => n.conversations),
    needs.flatMap((n) => n.groups),
  );
  const ours: Array<Of<K>> = [];
  const others: Array<Of<K>> = [];
  records.forEach((r, i) => {
    const n = needs[i]!;
    const own =
      n.conversations.every((c) => created.conversations.has(c)) && n.groups.every((g) => created.groups.has(g));
    (own ? ours : others).push(r);
  });
  if (ours.length > 0) {
    await writer.check?.(q, ours);
    outcome.stored = total(await writer.write(q, ours, scope));
    outcome.present = ours.length - outcome.stored;
  }
  if (others.length > 0) {
    // Written and undone: what is already stored is "present", anything more is refused.
    const would = await wouldStore(q, () => writer.write(q, others, scope));
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
async function creationsRefused(
  q: Queryable,
  kind: ExportDataKind,
  records: readonly ExportDataRecord[],
): Promise<string[]> {
  const ark = kind === 'ark_session';
  const ids = records.map((r) => (r.kind === 'ark_session' ? r.sessionId : (r as Of<'conversation'>).id));
  const { rows: found } = await q.query<{ id: string }>(
    ark
      ? 'SELECT session_id AS id FROM ark_sessions WHERE session_id = ANY($1::text[])'
      : 'SELECT id FROM conversations WHERE id = ANY($1::text[])',
    [[...new Set(ids)]],
  );
  const stored = new Set(found.map((r) => r.id));
  return ids.filter((id) => !stored.has(id));
}

/**
 * Numbers from here up are for records that came without one of a server's (mem0's memories get
 * their episodes' numbers there, from their ids): the server's own numbering does not follow them.
 */
export const UNNUMBERED_FROM = 2 ** 52;

/**
 * Moves each server-made numbering past what the import brought, so the target's next message,
 * episode, summary, KAOS session and stream chunk get numbers of their own.
 */
export async function advanceSequences(q: Queryable): Promise<void> {
  for (const [table, column] of [
    ['messages', 'id'],
    ['conversation_membership_removals', 'id'],
    ['episodes', 'id'],
    ['memory', 'memory_id'],
    ['kaos_sessions', 'ord'],
    ['stream_chunks', 'chunk_seq'],
  ] as const) {
    await q.query(
      `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), m)
       FROM (SELECT max(${column}) AS m FROM ${table} WHERE ${column} < ${UNNUMBERED_FROM}) x
       WHERE m IS NOT NULL AND m > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${seqName(table, column)})`,
    );
  }
}

const seqName = (table: string, column: string) => `${table}_${column}_seq`;
