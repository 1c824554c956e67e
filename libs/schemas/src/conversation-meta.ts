import { z } from 'zod';
import { rejectNul } from './group-chat-message.js';
import { IsoInstant } from './iso-instant.js';
import { TimeZone } from './time-zones.js';
import { SafeId } from './ids.js';

const timezone = TimeZone;

/** One participant as conversation metadata describes them; unknown keys are kept. */
export const UserDetail = z
  .object({
    full_name: z.string().max(1000).optional(),
    role: z.string().max(200).optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

/** GroupChatFormat files carry scene_desc as an object; the HTTP spec shows a string. Both are kept as given. */
const sceneDesc = z.union([z.string(), z.record(z.string(), z.unknown())]);

const userDetails = z.record(z.string(), UserDetail);
const tags = z.array(z.string().max(200)).max(100);

const metaFields = {
  version: z.string().min(1).max(100).optional(),
  scene: z.string().min(1).max(100),
  scene_desc: sceneDesc,
  name: z.string().max(1000),
  description: z.string().max(10_000),
  group_id: SafeId,
  created_at: IsoInstant,
  default_timezone: timezone,
  user_details: userDetails.default({}),
  tags: tags.optional(),
};

/**
 * One group's conversation metadata, as a group-chat file carries it: every field of spec 001
 * but `tags` is required by the spec, but, as EverMemOS's server does, a missing `user_details`
 * is `{}` and `version` may be left out (its January 2026 clients no longer send it).
 */
export const ConversationMeta = z.object(metaFields).superRefine(rejectNul);
export type ConversationMeta = z.infer<typeof ConversationMeta>;

/**
 * What `POST /api/v1/memories/conversation-meta` takes, and the `data` of a
 * conversation_meta.upserted event: one group's metadata, or, with `group_id` null or left out,
 * the default config every group without metadata of its own falls back to (EverMemOS's scene
 * default, since January 2026).
 */
export const ConversationMetaUpsert = z
  .object({
    ...metaFields,
    group_id: SafeId.nullish().meta({
      description: 'The group; null or left out: the default config for groups without their own',
    }),
  })
  .superRefine(rejectNul);
export type ConversationMetaUpsert = z.infer<typeof ConversationMetaUpsert>;

/** Fields a PATCH may change; everything else about a conversation is fixed once created. */
export const UPDATABLE_META_FIELDS = [
  'name',
  'description',
  'scene_desc',
  'tags',
  'user_details',
  'default_timezone',
] as const;
export const IMMUTABLE_META_FIELDS = ['version', 'scene', 'created_at', 'conversation_created_at'] as const;

export const ConversationMetaPatch = z
  .object({
    // null or left out: the default config
    group_id: SafeId.nullish(),
    name: z.string().max(1000).optional(),
    description: z.string().max(10_000).optional(),
    scene_desc: sceneDesc.optional(),
    tags: tags.optional(),
    user_details: userDetails.optional(),
    default_timezone: timezone.optional(),
  })
  .strict()
  .superRefine(rejectNul);
export type ConversationMetaPatch = z.infer<typeof ConversationMetaPatch>;

/** The PATCH fields present in a patch, in the order the spec lists them. */
export function patchedFields(patch: ConversationMetaPatch): string[] {
  return UPDATABLE_META_FIELDS.filter((f) => patch[f] !== undefined);
}
