import { iso, keyOne, keyTwo, type LifecycleParticipant } from '../participant.js';

/**
 * An ARK session's record, exported right after the conversations: a stream alone (no messages)
 * has no conversation record, and this one creates it on import, before its memberships.
 */
export const arkSessions: LifecycleParticipant = {
  table: 'ark_sessions',
  within: { session: 'session_id' },
  // after its chunks, as it goes before them on import
  purge: { by: 'both', column: 'session_id', counts: 'arkSessions', stage: 'parents' },
  export: {
    kind: 'ark_session',
    columns: () => `session_id AS "sessionId", ${iso('created_at')} AS "createdAt",
      ${iso('completed_at')} AS "completedAt"`,
    keys: ['session_id'],
    keyOf: keyOne('sessionId'),
  },
};

/** The chunks of an ARK session's response stream, kept for replay. */
export const arkChunks: LifecycleParticipant = {
  table: 'stream_chunks',
  within: { session: 'session_id' },
  purge: { by: 'both', column: 'session_id', counts: 'streamChunks', stage: 'leaves' },
  export: {
    kind: 'ark_chunk',
    columns: () => `session_id AS "sessionId", chunk_seq AS seq, chunk,
      ${iso('created_at')} AS "createdAt"`,
    keys: ['session_id', 'chunk_seq'],
    keyOf: keyTwo('sessionId', 'seq'),
  },
};
