import { ID_TAKEN, idsFound, inGroup, inserted, insertSql, withIdsTaken } from '../../participant/import-rows.js';
import type { TableImport } from '../../participant/table-import.js';

const CONVERSATION_META = insertSql(
  'conversation_meta',
  `group_id text, id text, version text, scene text, scene_desc jsonb, name text, description text,
   conversation_created_at timestamptz, default_timezone text, user_details jsonb, tags jsonb, created_at timestamptz,
   updated_at timestamptz`,
  'group_id',
  ID_TAKEN,
);

export const conversationMetaImport: TableImport<'conversation_meta'> = {
  kind: 'conversation_meta',
  needs: inGroup,
  // of the ids, the groups that have EverMemOS metadata
  holds: (q, ids) =>
    idsFound(q, 'SELECT DISTINCT group_id AS id FROM conversation_meta WHERE group_id = ANY($1::text[])', ids),
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
};
