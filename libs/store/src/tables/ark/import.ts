import { idsFound, inserted, insertedCreating, insertSql } from '../../participant/import-rows.js';
import type { TableImport } from '../../participant/table-import.js';

/**
 * Stores the ARK session of a conversation this import created ($2: the ids it created so far),
 * or a stream alone under an id nothing uses, which it notes as created, a group of its own.
 */
const ARK_SESSIONS = insertSql(
  'ark_sessions',
  'session_id text, created_at timestamptz, completed_at timestamptz',
  'session_id',
  {
    extra: '"idInUse" boolean',
    where: `(r."sessionId" = ANY($2::text[]) OR NOT r."idInUse")`,
    created: 'import_owner',
  },
);

const ARK_CHUNKS = insertSql(
  'stream_chunks',
  'session_id text, chunk_seq bigint, chunk jsonb, created_at timestamptz',
  'session_id',
  {
    fields: { chunk_seq: 'seq' },
  },
);

export const arkSessionImport: TableImport<'ark_session'> = {
  kind: 'ark_session',
  creates: (r) => r.sessionId,
  // of the ids, those of a stored ARK session
  holds: (q, ids) => idsFound(q, 'SELECT session_id AS id FROM ark_sessions WHERE session_id = ANY($1::text[])', ids),
  write: async (q, records, scope) => {
    const used = await scope.inUse(
      q,
      records.map((r) => r.sessionId),
    );
    const marked = records.map((r) => ({ ...r, idInUse: used.has(r.sessionId) }));
    return insertedCreating(q, ARK_SESSIONS, marked, scope, scope.ids());
  },
};

export const arkChunkImport: TableImport<'ark_chunk'> = {
  kind: 'ark_chunk',
  needs: (r) => ({ owner: r.sessionId, conversations: [r.sessionId], groups: [] }),
  write: (q, records) => inserted(q, ARK_CHUNKS, records),
  numbered: 'chunk_seq',
};
