import type { ConversationMetaPatch, ConversationMetaUpsert } from '@memstream/schemas';
import type { Queryable } from '../../store.js';
import {
  findConversationMeta,
  META_VALUE_COLUMNS,
  META_VALUE_COUNT,
  metaReplaced,
  metaValuePlaceholders,
  metaValues,
  patchAssignments,
  type StoredConversationMeta,
} from './conversation-meta.js';

/** The default conversation metadata: the fields of a group's, under no group. */
export type StoredDefaultConversationMeta = Omit<StoredConversationMeta, 'group_id'> & { readonly group_id: null };

const COLUMNS = `id, NULL::text AS group_id, version, scene, scene_desc, name, description, conversation_created_at,
  default_timezone, user_details, tags, created_at, updated_at`;

/** Creates or wholly replaces the default config (EverMemOS's POST with `group_id: null`); its id stays. */
export async function upsertDefaultConversationMeta(
  q: Queryable,
  meta: ConversationMetaUpsert,
  createdAt: Date,
  at = new Date(),
): Promise<StoredDefaultConversationMeta> {
  const { rows } = await q.query<StoredDefaultConversationMeta>(
    `INSERT INTO conversation_meta_default (${META_VALUE_COLUMNS})
     VALUES (${metaValuePlaceholders(1)})
     ON CONFLICT (singleton) DO UPDATE SET ${metaReplaced(`$${1 + META_VALUE_COUNT}`)}
     RETURNING ${COLUMNS}`,
    [...metaValues(meta, meta.version ?? null, createdAt), at],
  );
  return rows[0]!;
}

/** Changes only the fields given; undefined when there is no default config. */
export async function patchDefaultConversationMeta(
  q: Queryable,
  patch: ConversationMetaPatch,
  at = new Date(),
): Promise<StoredDefaultConversationMeta | undefined> {
  const params: unknown[] = [];
  const sets = patchAssignments(patch, params, at);
  const { rows } = await q.query<StoredDefaultConversationMeta>(
    `UPDATE conversation_meta_default SET ${sets} RETURNING ${COLUMNS}`,
    params,
  );
  return rows[0];
}

export async function findDefaultConversationMeta(q: Queryable): Promise<StoredDefaultConversationMeta | undefined> {
  const { rows } = await q.query<StoredDefaultConversationMeta>(`SELECT ${COLUMNS} FROM conversation_meta_default`);
  return rows[0];
}

/**
 * The default config as it applies to a group without metadata of its own: its scene, scene
 * description, time zone, participants and tags. Its name and description are the default's own
 * (EverMemOS's "Default Settings"), not the group's, so they are left out.
 */
export function defaultMetaOfGroup(meta: StoredDefaultConversationMeta, groupId: string): StoredConversationMeta {
  return { ...meta, group_id: groupId, name: '', description: '' };
}

/** What shapes a group's messages and memories: its own metadata, else the default config applied to it. */
export async function findEffectiveConversationMeta(
  q: Queryable,
  groupId: string,
): Promise<StoredConversationMeta | undefined> {
  const own = await findConversationMeta(q, groupId);
  if (own) return own;
  const fallback = await findDefaultConversationMeta(q);
  return fallback && defaultMetaOfGroup(fallback, groupId);
}
