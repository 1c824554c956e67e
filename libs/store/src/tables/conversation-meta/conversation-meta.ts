import type { ConversationMeta, ConversationMetaPatch } from '@memstream/schemas';
import type { Queryable } from '../../store.js';

/** A conversation's metadata as stored; `created_at` is the conversation's, `updated_at` the row's. */
export interface StoredConversationMeta {
  readonly id: string;
  readonly group_id: string;
  /** null when the writer gave none (EverMemOS's later clients send no version). */
  readonly version: string | null;
  readonly scene: string;
  readonly scene_desc: string | Record<string, unknown>;
  readonly name: string;
  readonly description: string;
  readonly conversation_created_at: Date;
  readonly default_timezone: string;
  readonly user_details: Record<
    string,
    { full_name?: string | undefined; role?: string | undefined; [k: string]: unknown }
  >;
  readonly tags: string[];
  readonly created_at: Date;
  readonly updated_at: Date;
}

const COLUMNS = `id, group_id, NULLIF(version, '') AS version, scene, scene_desc, name, description, conversation_created_at,
  default_timezone, user_details, tags, created_at, updated_at`;

/** Creates or wholly replaces a group's metadata (the spec's POST is an upsert); its id stays. */
export async function upsertConversationMeta(
  q: Queryable,
  meta: ConversationMeta,
  createdAt: Date,
  at = new Date(),
): Promise<StoredConversationMeta> {
  const { rows } = await q.query<StoredConversationMeta>(
    `INSERT INTO conversation_meta (group_id, ${META_VALUE_COLUMNS})
     VALUES ($1, ${metaValuePlaceholders(2)})
     ON CONFLICT (group_id) DO UPDATE SET ${metaReplaced(`$${2 + META_VALUE_COUNT}`)}
     RETURNING ${COLUMNS}`,
    // the version column predates optional versions; '' (which no writer can give) stands for none
    [meta.group_id, ...metaValues(meta, meta.version ?? '', createdAt), at],
  );
  return rows[0]!;
}

/** The columns a metadata row is written with, beside its key (a group's id, or the default's singleton). */
export const META_VALUE_COLUMNS = `version, scene, scene_desc, name, description, conversation_created_at,
  default_timezone, user_details, tags`;

const CASTS = ['', '', '::jsonb', '', '', '', '', '::jsonb', '::jsonb'];

/** How many values META_VALUE_COLUMNS takes. */
export const META_VALUE_COUNT = CASTS.length;

/** Placeholders for META_VALUE_COLUMNS' values from `$first` on, JSON columns cast. */
export function metaValuePlaceholders(first: number): string {
  return CASTS.map((cast, i) => `$${first + i}${cast}`).join(', ');
}

/** An upsert replaces every value column (the row's id and creation time stay), at the time in parameter `at`. */
export const metaReplaced = (at: string) => `version = EXCLUDED.version, scene = EXCLUDED.scene,
  scene_desc = EXCLUDED.scene_desc, name = EXCLUDED.name, description = EXCLUDED.description,
  conversation_created_at = EXCLUDED.conversation_created_at,
  default_timezone = EXCLUDED.default_timezone, user_details = EXCLUDED.user_details,
  tags = EXCLUDED.tags, updated_at = ${at}::timestamptz`;

/** META_VALUE_COLUMNS' values, in order. */
export function metaValues(
  meta: Omit<ConversationMeta, 'group_id' | 'version'>,
  version: string | null,
  createdAt: Date,
): unknown[] {
  return [
    version,
    meta.scene,
    JSON.stringify(meta.scene_desc),
    meta.name,
    meta.description,
    createdAt.toISOString(),
    meta.default_timezone,
    JSON.stringify(meta.user_details),
    JSON.stringify(meta.tags ?? []),
  ];
}

const PATCH_COLUMNS = {
  name: { column: 'name', json: false },
  description: { column: 'description', json: false },
  scene_desc: { column: 'scene_desc', json: true },
  tags: { column: 'tags', json: true },
  user_details: { column: 'user_details', json: true },
  default_timezone: { column: 'default_timezone', json: false },
} as const;

/** Changes only the fields given; undefined when the group has no metadata. */
export async function patchConversationMeta(
  q: Queryable,
  groupId: string,
  patch: ConversationMetaPatch,
  at = new Date(),
): Promise<StoredConversationMeta | undefined> {
  const params: unknown[] = [groupId];
  const sets = patchAssignments(patch, params, at);
  const { rows } = await q.query<StoredConversationMeta>(
    `UPDATE conversation_meta SET ${sets} WHERE group_id = $1 RETURNING ${COLUMNS}`,
    params,
  );
  return rows[0];
}

/** The SET list of a patch made at `at`, its values appended to `params`. */
export function patchAssignments(patch: ConversationMetaPatch, params: unknown[], at: Date): string {
  const sets: string[] = [`updated_at = $${params.push(at)}::timestamptz`];
  for (const [field, { column, json }] of Object.entries(PATCH_COLUMNS)) {
    const value = patch[field as keyof typeof PATCH_COLUMNS];
    if (value === undefined) continue;
    params.push(json ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}${json ? '::jsonb' : ''}`);
  }
  return sets.join(', ');
}

/** True when the group has metadata, an SQL expression over `group` (a group id): a use of the id. */
export const hasConversationMeta = (group: string) =>
  `EXISTS (SELECT 1 FROM conversation_meta WHERE group_id = ${group})`;

export async function findConversationMeta(q: Queryable, groupId: string): Promise<StoredConversationMeta | undefined> {
  return (await findConversationMetas(q, [groupId])).get(groupId);
}

export async function findConversationMetas(
  q: Queryable,
  groupIds: readonly string[],
): Promise<Map<string, StoredConversationMeta>> {
  if (groupIds.length === 0) return new Map();
  const { rows } = await q.query<StoredConversationMeta>(
    `SELECT ${COLUMNS} FROM conversation_meta WHERE group_id = ANY($1::text[])`,
    [[...groupIds]],
  );
  return new Map(rows.map((r) => [r.group_id, r]));
}
