import type { Queryable } from '../../store.js';
import { inConversation, inserted, insertSql, refuseTakenIds, rows } from '../../participant/import-rows.js';
import type { ImportCreated, TableImport } from '../../participant/table-import.js';

/**
 * Stores a session with its name (kaos_session_names) only where the name is free or already the
 * session's: a name another session holds refused the import before (its check), and of two
 * records of one session in a batch, only the first conversation's is stored.
 */
const KAOS_SESSIONS = insertSql(
  'kaos_sessions',
  `agent text, session_id text, conversation_id text, app_name text, user_id text, ord bigint, next_event bigint,
   created_at timestamptz, updated_at timestamptz`,
  'conversation_id',
  {
    where: `r."conversationId" IN (SELECT conversation_id FROM named)`,
    before: `named AS (
       INSERT INTO kaos_session_names (agent, session_id, conversation_id)
       SELECT DISTINCT ON (r.agent, r."sessionId") r.agent, r."sessionId", r."conversationId" FROM input r
       ORDER BY r.agent, r."sessionId", r."conversationId"
       ON CONFLICT DO NOTHING RETURNING conversation_id)`,
  },
);

const KAOS_EVENTS = insertSql(
  'kaos_events',
  'conversation_id text, seq bigint, event_id text, occurred_at timestamptz, event_type text, content text, metadata text',
  'conversation_id',
  { select: { content: (f) => `${f}::json`, metadata: (f) => `${f}::json` } },
);

/** Moves each created session's next event past its highest event: a file may carry numbers its counter does not cover. */
async function nextEventsPastImported(q: Queryable, { ids }: ImportCreated): Promise<void> {
  await q.query(
    `UPDATE kaos_sessions s SET next_event = t.top + 1
     FROM (SELECT e.conversation_id, max(e.seq) AS top FROM kaos_events e WHERE e.conversation_id = ANY($1::text[])
           GROUP BY e.conversation_id) t
     WHERE s.conversation_id = t.conversation_id AND s.next_event <= t.top`,
    [ids],
  );
}

export const kaosSessionImport: TableImport<'kaos_session'> = {
  kind: 'kaos_session',
  needs: inConversation,
  // A live session is one per agent and session id (kaos_session_names): a name a session of the
  // server holds, or one name given to two sessions in the file, refuses the import.
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
  numbered: 'ord',
  finish: nextEventsPastImported,
};

export const kaosEventImport: TableImport<'kaos_event'> = {
  kind: 'kaos_event',
  needs: inConversation,
  write: (q, records) => inserted(q, KAOS_EVENTS, records),
};
