import { z } from 'zod';
import { IsoInstant } from './iso-instant.js';
import { MAGIC_ALL, everMemOsScopeRule } from './evermemos-scope.js';
import { EXPORT_ID_MAX } from './export-format.js';

/**
 * The EverMemOS family's HTTP requests beyond the message and the metadata themselves: the
 * queries and bodies its routes parse. They live here, not in the routes, so that the TypeScript
 * client types its calls with the very schemas the server validates with.
 */

/** `?sync_mode=false` answers once the broker has the write; the default waits for the store. */
export const SyncModeQuery = z
  .object({
    sync_mode: z
      .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
      .default('true')
      .transform((v) => v === 'true' || v === '1')
      .meta({ description: 'false answers 202 once the broker has the write, instead of waiting for the store' }),
  })
  .loose();

/** The spec's answer when the write is safe but not yet done. */
export const AcceptedReply = z.object({ status: z.literal('ok'), message: z.string(), request_id: z.string() }).meta({
  description:
    'Kafka has the write, storing it outlasted REQUEST_SYNC_TIMEOUT_MS (or sync_mode=false): poll GET /api/v1/stats/request',
});

/**
 * EverMemOS's memory kinds memstream forms none of: every name its MemoryType enum has held (its
 * profiles, foresight, atomic-fact event logs and their older names, and the kinds it lists as not
 * implemented itself). Asked for, they answer an empty list, as that server answers them.
 */
export const UNFORMED_MEMORY_TYPES = [
  'profile',
  'foresight',
  'event_log',
  'personal_semantic_memory',
  'personal_event_log',
  'semantic_memory',
  'base_memory',
  'preference',
  'core',
  'multiple',
  'entity',
  'relation',
  'behavior_history',
  'group_profile',
] as const;

/** A group or user filter as EverMemOS's clients send it: "__all__" is any, null or "" is none. */
const scopeValue = (description: string) => z.string().max(500).nullable().optional().meta({ description });
const GroupScope = scopeValue(
  'A group; "__all__" or absent: any group; null or "": no group (the private chat of user_id)',
);
const UserScope = scopeValue(
  'A participant; "__all__" or absent: anyone; null or "": no one in particular (the group\'s own narrative)',
);

/** A time with or without a zone (zone-less is UTC, as for messages). */
const Instant = IsoInstant;

export const ListMemoriesQuery = z.object({
  group_id: GroupScope,
  user_id: UserScope,
  // Messages by default, as before episodes existed: clients listing a group's history keep working.
  memory_type: z.enum(['message', 'episodic_memory', ...UNFORMED_MEMORY_TYPES]).default('message'),
  limit: z.coerce.number().int().min(1).max(500).default(40),
  offset: z.coerce.number().int().min(0).default(0),
  start_time: Instant.optional(),
  end_time: Instant.optional(),
});

export const MemoryType = z.enum(['episodic_memory', 'message', ...UNFORMED_MEMORY_TYPES]);
export const SearchMemoriesRequest = z.object({
  query: z.string().trim().min(1).max(4_000),
  group_id: GroupScope,
  user_id: UserScope,
  retrieve_method: z
    .enum(['keyword', 'vector', 'hybrid', 'rrf', 'agentic'])
    .default('hybrid')
    .meta({ description: "agentic (EverMemOS's model-guided rounds) runs hybrid here" }),
  top_k: z.coerce.number().int().min(1).max(100).default(10),
  memory_types: z.array(MemoryType).min(1).default(['episodic_memory', 'message']),
  start_time: Instant.optional(),
  end_time: Instant.optional(),
});

/**
 * The POST search, which is memstream's own (EverMemOS searches with GET): EverMemOS's
 * parameters and `explain`, which adds to each hit what its score is made of.
 */
export const SearchMemoriesPost = SearchMemoriesRequest.extend({
  explain: z.boolean().default(false).meta({
    description:
      "memstream's extension: each hit gets `score_parts` (its rank and score in the keyword and vector lists, and the terms its score is the weighted sum of)",
  }),
}).meta({ allOf: [everMemOsScopeRule('body', false)] });

/**
 * `group_id` and `user_id` of a GET's query string as the document gives them: one object
 * parameter (form style, exploded, so its fields are the query's own keys), because the rule
 * that refuses some pairs spans both and OpenAPI states nothing across two parameters. The
 * handlers parse the flat query (ListMemoriesQuery, SearchMemoriesRequest), the clients send it.
 */
const documentedScope = (nameOne: boolean) =>
  z.strictObject({ group_id: GroupScope, user_id: UserScope }).meta({
    description: nameOne
      ? 'group_id and user_id, as query keys of their own: a group or a user must be named, not both "__all__"; group_id "" (no group) with a user_id naming someone'
      : 'group_id and user_id, as query keys of their own: not both "__all__" (or one "__all__", the other absent); group_id "" (no group) with a user_id naming someone',
    allOf: [everMemOsScopeRule('query', nameOne)],
  });

/** GET /api/v1/memories's query as documented (see documentedScope). */
export const ListMemoriesQueryDocument = ListMemoriesQuery.omit({ group_id: true, user_id: true }).extend({
  scope: documentedScope(false).optional(),
});

/** GET /api/v1/memories/search's query as documented (see documentedScope). */
export const SearchMemoriesQueryDocument = SearchMemoriesRequest.omit({ group_id: true, user_id: true }).extend({
  scope: documentedScope(true),
});

/**
 * The longest value of each delete filter. An event id is an episode's number or a memory's id,
 * and a memory's id is as long as the export format lets one be (an imported memory keeps its
 * id): a shorter bound would leave such a memory undeletable by its own id. EverMemOS itself
 * bounds it not at all, and answers an id it cannot use with 404.
 */
const FILTER_MAX = { event_id: EXPORT_ID_MAX, message_id: 500, group_id: 500, user_id: 500 } as const;

/**
 * The filters of a deletion as the converter applies them, all ANDed: the matching messages (and
 * what was made from them) go. `event_id` names an episode (EverMemOS's MemCell, listed in each
 * memory's `memcell_event_id_list`) or one memory (its `id`), meaning that memory's episode.
 * Strict: a key nobody filters by must never be dropped, as dropping it widens the deletion.
 */
export const DeleteMemoriesFilter = z
  .object({
    event_id: z.string().min(1).max(FILTER_MAX.event_id).optional(),
    message_id: z.string().min(1).optional(),
    group_id: z.string().min(1).optional(),
    user_id: z.string().min(1).optional(),
  })
  .strict()
  .refine(
    (f) =>
      f.event_id !== undefined || f.message_id !== undefined || f.group_id !== undefined || f.user_id !== undefined,
    { message: 'give at least one of event_id, message_id, group_id, user_id' },
  );
export type DeleteMemoriesFilter = z.infer<typeof DeleteMemoriesFilter>;

/** How EverMemOS's clients leave a delete filter out: absent, null, '' or "__all__". */
const deleteFilterValue = (description: string, max: number) =>
  z
    .string()
    .max(max)
    .nullable()
    .optional()
    .transform((v) => (v === null || v === undefined || v === '' || v === MAGIC_ALL ? undefined : v))
    .meta({ description: `${description}; null, "" or "__all__" leave it out` });

/**
 * `DELETE /api/v1/memories` as a client sends it: query string and JSON body merged (the body
 * wins). Unknown keys are refused (400); no filter left after the "any" values is 422, as in
 * EverMemOS's server.
 */
export const DeleteMemoriesRequest = z
  .object({
    event_id: deleteFilterValue("An episode id (a memory's memcell_event_id_list) or a memory id", FILTER_MAX.event_id),
    message_id: deleteFilterValue('A message id', FILTER_MAX.message_id),
    group_id: deleteFilterValue('A group id', FILTER_MAX.group_id),
    user_id: deleteFilterValue("A sender's id", FILTER_MAX.user_id),
    sync_mode: SyncModeQuery.shape.sync_mode,
  })
  .strict();

/** A filter value that names something: not absent, null, "" or "__all__". */
const namingFilter = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => v !== MAGIC_ALL)
    .meta({ not: { enum: [MAGIC_ALL] } });

const DELETE_FILTERS = ['event_id', 'message_id', 'group_id', 'user_id'] as const;

/**
 * `DELETE /api/v1/memories`'s JSON body as the document gives it: the filter object, naming at
 * least one filter (EverMemOS answers 422 otherwise), as one alternative per filter that names
 * it. The handler reads it merged with the query (DeleteMemoriesRequest): a filter may also come
 * in the query, which the document lists too but cannot tie to the body.
 */
export const DeleteMemoriesBody = z
  .union(
    DELETE_FILTERS.map((named) =>
      DeleteMemoriesRequest.extend({
        [named]: namingFilter(FILTER_MAX[named]).meta({ description: DeleteMemoriesRequest.shape[named].description }),
      }),
    ) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]],
  )
  .meta({ description: 'The filters, ANDed; at least one of event_id, message_id, group_id, user_id names something' });

/** The filter names a deletion used, in EverMemOS's order, as its answer lists them. */
export function deleteFilterNames(f: DeleteMemoriesFilter): string[] {
  return (['event_id', 'user_id', 'group_id', 'message_id'] as const).filter((k) => f[k] !== undefined);
}

export const FlushMemoriesRequest = z.object({
  group_id: z.string().min(1),
  sync_mode: z.boolean().default(true),
});

/** Without `group_id`: the default config (EverMemOS's `group_id: null`). */
export const ConversationMetaQuery = z.object({ group_id: z.string().min(1).max(255).optional() });
export const MemoryStatsQuery = z.object({ group_id: z.string().min(1) });
export const RequestStatusQuery = z.object({ request_id: z.string().min(1).max(200) });
