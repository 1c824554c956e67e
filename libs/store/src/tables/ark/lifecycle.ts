import type { Queryable } from '../../store.js';
import {
  iso,
  keyOne,
  keyTwo,
  EVICTED_WITH_GROUP,
  type LifecycleParticipant,
  type RetainPass,
} from '../../participant/participant.js';
import { groupActiveSince, rootGroupsOf } from '../conversations/conversation-sql.js';
import { arkChunkImport, arkSessionImport } from './import.js';

/**
 * An ARK session's record, exported right after the conversations: a stream alone (no messages)
 * has no conversation record, and this one creates it on import, before its memberships.
 */
export const arkSessions: LifecycleParticipant = {
  table: 'ark_sessions',
  within: { session: 'session_id' },
  // after its chunks, as it goes before them on import
  purge: { by: 'both', column: 'session_id', counts: 'arkSessions', stage: 'parents' },
  // no metadata of its own to shorten the period by
  notEvicted: EVICTED_WITH_GROUP,
  retain: {
    kind: 'arkSessions',
    agedBy: ['created_at', 'completed_at'],
    overridable: false,
    goes: { groups: (tx, pass) => idleArkSessions(tx, pass), counts: 'arkSessions' },
  },
  export: {
    kind: 'ark_session',
    columns: () => `session_id AS "sessionId", ${iso('created_at')} AS "createdAt",
      ${iso('completed_at')} AS "completedAt"`,
    keys: ['session_id'],
    keyOf: keyOne('sessionId'),
  },
  import: arkSessionImport,
};

/** The chunks of an ARK session's response stream, kept for replay. */
export const arkChunks: LifecycleParticipant = {
  table: 'stream_chunks',
  within: { session: 'session_id' },
  purge: { by: 'both', column: 'session_id', counts: 'streamChunks', stage: 'leaves' },
  notRetained: 'goes with its ARK session, whose activity its created_at counts in (ark_sessions)',
  notEvicted: EVICTED_WITH_GROUP,
  export: {
    kind: 'ark_chunk',
    columns: () => `session_id AS "sessionId", chunk_seq AS seq, chunk,
      ${iso('created_at')} AS "createdAt"`,
    keys: ['session_id', 'chunk_seq'],
    keyOf: keyTwo('sessionId', 'seq'),
  },
  import: arkChunkImport,
};

/**
 * ARK sessions (their ids, which are their groups') with no activity since the cutoff: no message
 * said, no chunk relayed, not created or completed. Retention removes them whole, with everything
 * made from them (purgeConversationGroups). A session's conversation is its own group (group_key =
 * id): both sides of the union give their shard column, so Citus runs the union and every probe
 * shard by shard.
 */
async function idleArkSessions(tx: Queryable, o: RetainPass): Promise<string[]> {
  const { rows } = await tx.query<{ session_id: string }>(
    `SELECT s.session_id FROM (
       ${rootGroupsOf('ark', 'session_id')}
       UNION SELECT session_id FROM ark_sessions) s
     WHERE NOT ${groupActiveSince('s.session_id', '$1', 'ark')}
       AND NOT EXISTS (SELECT 1 FROM ark_sessions a WHERE a.session_id = s.session_id
                        AND (a.created_at >= $1 OR a.completed_at >= $1))
       AND NOT EXISTS (SELECT 1 FROM stream_chunks k WHERE k.session_id = s.session_id AND k.created_at >= $1)
     ORDER BY 1 LIMIT $2`,
    [o.cutoff, o.batchSize],
  );
  return rows.map((r) => r.session_id);
}
