import { iso, keyOne, EVICTED_WITH_GROUP, type LifecycleParticipant } from '../../participant/participant.js';
import { addCount, noErasureCounts } from '../../participant/erasure-counts.js';
import { conversationMetaImport } from './import.js';

const COLUMNS = (details: string, described: string) => `group_id AS "groupId", id, version,
  scene, CASE WHEN ${described} THEN scene_desc END AS "sceneDesc",
  CASE WHEN ${described} THEN name ELSE '' END AS name,
  CASE WHEN ${described} THEN description ELSE '' END AS description,
  ${iso('conversation_created_at')} AS "conversationCreatedAt", default_timezone AS "defaultTimezone",
  ${details} AS "userDetails", CASE WHEN ${described} THEN tags ELSE '[]'::jsonb END AS tags,
  ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt"`;

/**
 * EverMemOS group metadata. In a group that is not the person's, their entry among the group's
 * participants (user_details) is theirs: the erasure removes it and the export holds it, with
 * the group named but not described (its name and description are its owner's).
 */
export const conversationMeta: LifecycleParticipant = {
  table: 'conversation_meta',
  within: { group: 'group_id' },
  named: (person) => `conversation_meta.user_details ? ${person}`,
  purge: { by: 'both', column: 'group_id', counts: 'conversationMeta', stage: 'leaves' },
  notRetained: "a group's description, kept while the group is: it goes with it",
  notEvicted: EVICTED_WITH_GROUP,
  export: {
    kind: 'conversation_meta',
    columns: ({ whole, person }) =>
      COLUMNS(
        person === undefined
          ? 'user_details'
          : `CASE WHEN ${whole} THEN user_details ELSE jsonb_build_object(${person}::text, user_details -> ${person}) END`,
        whole,
      ),
    keys: ['group_id'],
    keyOf: keyOne('groupId'),
  },
  import: conversationMetaImport,
  erase: {
    heldBack: 5,
    writtenByOthers: true,
    named: async (tx, userId) => {
      const counts = noErasureCounts();
      const { rowCount } = await tx.query(
        `UPDATE conversation_meta SET user_details = user_details - $1, updated_at = $2 WHERE ${conversationMeta.named!('$1')}`,
        [userId, new Date()],
      );
      addCount(counts, 'evermemos', 'postgres', 'groupMetadataRewritten', rowCount ?? 0);
      return counts;
    },
  },
};

/** The default participants groups without metadata fall back to: server configuration, in no group. */
export const conversationMetaDefault: LifecycleParticipant = {
  table: 'conversation_meta_default',
  within: 'nowhere',
  named: (person) => `conversation_meta_default.user_details ? ${person}`,
  notPurged: 'server configuration, in no group',
  notRetained: 'server configuration, in no group',
  notEvicted: 'server configuration, in no group',
  notExported:
    'server configuration the export format has no record for; the person entry it holds is de-identified on erasure',
  erase: {
    heldBack: 6,
    writtenByOthers: true,
    named: async (tx, userId) => {
      const counts = noErasureCounts();
      const { rowCount } = await tx.query(
        `UPDATE conversation_meta_default SET user_details = user_details - $1, updated_at = $2
         WHERE ${conversationMetaDefault.named!('$1')}`,
        [userId, new Date()],
      );
      addCount(counts, 'evermemos', 'postgres', 'groupMetadataRewritten', rowCount ?? 0);
      return counts;
    },
  },
};
