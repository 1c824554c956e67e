import { z } from 'zod';
import { MemoryType } from './evermemos-api.js';

/**
 * EverMemOS's answers, exactly as the handlers send them: fastify serializes through these, so a
 * field left out here is not sent. Every answer is the envelope `{status, message, result}`; the
 * memories carry EverMemOS's names for a field beside ours where its clients read them.
 */
const envelope = <R extends z.ZodType>(result: R) => z.object({ status: z.enum(['ok']), message: z.string(), result });

const CLOSE_REASONS = ['message_cap', 'token_cap', 'silence', 'idle', 'flush', 'topic'] as const;

/** A stored message in a memory list. */
export const MessageMemory = z.object({
  memory_type: z.enum(['message']),
  message_id: z.string(),
  group_id: z.string(),
  group_name: z.string().optional(),
  user_id: z.string(),
  sender_name: z.string(),
  timestamp: z.string(),
  content: z.string(),
  refer_list: z.array(z.string()),
  sequence: z.number().int(),
});

/** An episodic memory: the group's narrative (`user_id` null) or one participant's. */
export const EpisodicMemoryView = z.object({
  memory_type: z.enum(['episodic_memory']),
  id: z.string(),
  episode_id: z.string(),
  group_id: z.string(),
  user_id: z.string().nullable(),
  title: z.string(),
  subject: z.string(),
  content: z.string(),
  summary: z.string(),
  timestamp: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  memcell_event_id_list: z.array(z.string()),
  message_ids: z.array(z.string()),
  participants: z.array(z.string()),
  version: z.number().int(),
  extractor: z.string(),
});

/** A message no episode holds yet, as EverMemOS lists its pending messages. */
export const PendingMessage = MessageMemory.extend({
  id: z.string(),
  request_id: z.null(),
  sender: z.string(),
  message_create_time: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A search hit; `message_ids` are the source messages (a message's own id). */
export const SearchHitView = z.object({
  id: z.string(),
  memory_type: z.enum(['message', 'episodic_memory']),
  content: z.string(),
  score: z.number(),
  group_id: z.string(),
  user_id: z.string().nullable(),
  timestamp: z.string(),
  message_ids: z.array(z.string()),
});

/** A hit of EverMemOS's grouped answer: EverMemOS's names beside ours (`episode_id` for a memory only). */
const GroupedHit = SearchHitView.extend({
  summary: z.string(),
  episode_id: z.string().optional(),
  ori_event_id_list: z.array(z.string()),
});

/** The filters a read used, as its client sent them. */
const ReadMetadata = z.object({
  source: z.string(),
  user_id: z.string(),
  memory_type: z.string(),
  limit: z.number().int(),
  /** null or "": no group (a private chat) */
  group_id: z.string().nullable().optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
});

export const MemoryListAnswer = envelope(
  z.object({
    memories: z.array(z.discriminatedUnion('memory_type', [MessageMemory, EpisodicMemoryView])),
    total_count: z.number().int(),
    has_more: z.boolean(),
    metadata: ReadMetadata.extend({ source: z.enum(['memstream', 'not_formed']), memory_type: MemoryType }),
  }),
);

const RetrieveMethod = z.enum(['keyword', 'vector', 'hybrid', 'rrf', 'agentic']);

/** `GET /api/v1/memories/search`: EverMemOS's dialect, one `{group_id: [...]}` per group, best group first. */
export const GroupedSearchAnswer = envelope(
  z.object({
    memories: z.array(z.record(z.string(), z.array(GroupedHit))),
    scores: z.array(z.record(z.string(), z.array(z.number()))),
    importance_scores: z.array(z.number()),
    original_data: z.array(z.unknown()),
    total_count: z.number().int(),
    has_more: z.boolean(),
    retrieve_method: RetrieveMethod,
    query_metadata: ReadMetadata,
    metadata: ReadMetadata,
    pending_messages: z.array(PendingMessage),
  }),
);

/** What a hit's score is made of, sent only when the search asked to `explain`. */
const ScorePartsView = z.object({
  keyword: z.object({ rank: z.number().int(), score: z.number() }).nullable(),
  vector: z.object({ rank: z.number().int(), similarity: z.number() }).nullable(),
  terms: z.array(z.object({ name: z.string(), weight: z.number(), value: z.number() })),
  divisor: z.number(),
  fused: z.number(),
});

/** A hit of memstream's flat answer; `score_parts` with `explain: true` only (null when the method gave none). */
const FlatHit = SearchHitView.extend({ score_parts: ScorePartsView.nullable().optional() });

/** `POST /api/v1/memories/search`: memstream's dialect, one ranked list. */
export const FlatSearchAnswer = envelope(
  z.object({
    memories: z.array(FlatHit),
    total_count: z.number().int(),
    retrieve_method: RetrieveMethod,
    pending_messages: z.array(PendingMessage),
  }),
);

/** `POST /api/v1/memories` once the message is stored: the memories its closing of an episode formed, if any. */
export const WriteMemoryAnswer = envelope(
  z.object({
    saved_memories: z.array(EpisodicMemoryView),
    count: z.number().int(),
    status_info: z.enum(['extracted', 'extracting', 'accumulated']),
    request_id: z.string(),
    duplicate: z.boolean(),
    group_id: z.string(),
    message_id: z.string(),
    /** null when the converter named none (a duplicate answers the stored one's when it knows it) */
    sequence: z.number().int().nullable(),
  }),
);

/** What a conversation-meta write answers with: the stored row's names, once the converter applied it. */
const MetaWritten = z.object({
  id: z.string(),
  /** null: the default config, written without a group */
  group_id: z.string().nullable(),
  scene: z.string(),
  name: z.string(),
  updated_at: z.string(),
  request_id: z.string(),
});

export const ConversationMetaSavedAnswer = envelope(
  MetaWritten.extend({
    is_default: z.boolean(),
    version: z.string().nullable(),
    created_at: z.string(),
    conversation_created_at: z.string(),
  }),
);

export const ConversationMetaPatchedAnswer = envelope(MetaWritten.extend({ updated_fields: z.array(z.string()) }));

export const DeleteMemoriesAnswer = envelope(
  z.object({
    filters: z.array(z.enum(['event_id', 'user_id', 'group_id', 'message_id'])),
    deleted_messages: z.number().int(),
    deleted_memories: z.number().int(),
    episodes_reextracting: z.number().int(),
    episodes_deleted: z.number().int(),
    count: z.number().int(),
  }),
);

export const FlushAnswer = envelope(
  z.object({
    group_id: z.string(),
    status_info: z.enum(['extracted', 'extracting', 'nothing_pending']),
    episodes: z.array(
      z.object({
        episode_id: z.number().int(),
        start_sequence: z.number().int(),
        end_sequence: z.number().int(),
        message_count: z.number().int(),
        close_reason: z.enum(CLOSE_REASONS),
        status: z.enum(['pending', 'extracted', 'failed']),
      }),
    ),
  }),
);

export const ConversationMetaAnswer = envelope(
  z.object({
    id: z.string(),
    // null: the default config (is_default), answered for a group without metadata of its own
    group_id: z.string().nullable(),
    version: z.string().nullable(),
    scene: z.string(),
    scene_desc: z.union([z.string(), z.record(z.string(), z.unknown())]),
    name: z.string(),
    description: z.string(),
    created_at: z.string(),
    conversation_created_at: z.string(),
    is_default: z.boolean(),
    default_timezone: z.string(),
    user_details: z.record(z.string(), z.record(z.string(), z.unknown())),
    tags: z.array(z.string()),
    updated_at: z.string(),
  }),
);

const count = z.number().int();
export const MemoryStatsAnswer = envelope(
  z.object({
    group_id: z.string(),
    embedding_model: z.string(),
    messages: count,
    indexed_messages: count,
    current_vectors: count,
    search_items: count,
    episodes: count,
    episodes_extracted: count,
    episodic_memories: count,
    open_messages: count,
  }),
);

/** Where a write is: only `accepted` before the converter applied it, the outcome after. */
export const RequestStatusAnswer = envelope(
  z.discriminatedUnion('status', [
    z.object({ request_id: z.string(), status: z.enum(['accepted']) }),
    z.object({
      request_id: z.string(),
      status: z.enum(['stored', 'failed', 'extracted']),
      kind: z.enum(['message', 'conversation_meta', 'conversation']),
      group_id: z.string().nullable(),
      message_id: z.string().nullable(),
      duplicate: z.boolean(),
      sequence: z.number().int().nullable(),
      error: z.object({ code: z.string(), message: z.string().nullable() }).nullable(),
      updated_at: z.string(),
      episode: z
        .object({
          episode_id: z.number().int(),
          status: z.enum(['extracted', 'pending']),
          close_reason: z.enum(CLOSE_REASONS),
          memory_ids: z.array(z.string()),
        })
        .nullable(),
    }),
  ]),
);
