import type { z } from 'zod';
import type {
  AcceptedReply,
  ConsoleConversation as ConsoleConversationBody,
  ConsumerGroupLag as ConsumerGroupLagBody,
  ConversationBody,
  DeadLetterRecord as DeadLetterRecordBody,
  MembershipBody,
  OwnershipTransferBody,
  OwnershipTransferPage,
  TransferBody,
} from '@memstream/schemas';

/**
 * The answers whose bodies the server documents in words rather than with a zod schema (the
 * EverMemOS, ARK and Memory Agent envelopes, the memory-service messages). They are typed here
 * from the server's views, loosely where the server adds fields over time: every answer keeps
 * the fields it has, typed or not. Answers that have a schema are its z.infer, below.
 */
export type Accepted = z.infer<typeof AcceptedReply>;
export type Conversation = z.infer<typeof ConversationBody>;
export type Membership = z.infer<typeof MembershipBody>;
/** A row of the list across families (GET /v1/console/conversations). */
export type ConsoleConversation = z.infer<typeof ConsoleConversationBody>;
/** One consumer group's lag on one topic, from the bus (GET /v1/console/pipeline). */
export type ConsumerGroupLag = z.infer<typeof ConsumerGroupLagBody>;
/** A dead-lettered record with its reason (GET /v1/admin/dead-letters). */
export type DeadLetterRecord = z.infer<typeof DeadLetterRecordBody>;
export type Transfer = z.infer<typeof TransferBody>;
/** A pending offer of the later transfer API (/v1/ownership-transfers). */
export type OwnershipOffer = z.infer<typeof OwnershipTransferBody>;
export type OwnershipOfferPage = z.infer<typeof OwnershipTransferPage>;

/** The EverMemOS envelope of a successful answer. */
export interface EverMemOsAnswer<R> {
  readonly status: 'ok';
  readonly message: string;
  readonly result: R;
}

export interface WriteResult {
  readonly saved_memories: unknown[];
  readonly count: number;
  readonly status_info: string;
  readonly request_id: string;
  readonly duplicate: boolean;
  readonly group_id: string;
  readonly message_id: string;
  readonly sequence: number;
}

export interface MessageMemory {
  readonly memory_type: 'message';
  readonly message_id: string;
  readonly group_id: string;
  readonly group_name?: string;
  readonly user_id: string;
  readonly sender_name: string | null;
  readonly timestamp: string;
  readonly content: string;
  readonly refer_list: unknown[];
  readonly sequence: number;
}

export interface EpisodicMemoryView {
  readonly memory_type: 'episodic_memory';
  readonly id: string;
  readonly group_id: string;
  readonly user_id: string | null;
  readonly title: string;
  readonly content: string;
  readonly timestamp: string;
  readonly end_time: string;
  readonly message_ids: string[];
  readonly participants: string[];
  readonly version: number;
  readonly extractor: string;
}

export interface MemoryPage {
  readonly memories: (MessageMemory | EpisodicMemoryView)[];
  readonly total_count: number;
  readonly has_more: boolean;
  /** The filters as asked (user_id, group_id, memory_type, ...), as EverMemOS's clients read them back. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface SearchHit {
  readonly id: string;
  readonly memory_type: 'message' | 'episodic_memory';
  readonly content: string;
  readonly score: number;
  readonly group_id: string;
  readonly user_id: string | null;
  readonly timestamp: string;
  readonly message_ids: string[];
  /** With `explain: true` (POST search only). */
  readonly score_parts?: ScoreParts | null;
  readonly [field: string]: unknown;
}

/**
 * What a hit's score is made of: `fused = Σ weight × value over terms / divisor`. `keyword` and
 * `vector` are its place in each method's own list (null: not in it, or the method did not run).
 */
export interface ScoreParts {
  readonly keyword: { readonly rank: number; readonly score: number } | null;
  readonly vector: { readonly rank: number; readonly similarity: number } | null;
  readonly terms: readonly { readonly name: string; readonly weight: number; readonly value: number }[];
  readonly divisor: number;
  readonly fused: number;
}

export interface SearchResult {
  readonly memories: SearchHit[];
  readonly total_count: number;
  readonly retrieve_method: string;
  readonly pending_messages: MessageMemory[];
}

/**
 * A search by GET, answered as EverMemOS answers it: one `{group_id: [hit, ...]}` per group (the
 * group with the best hit first, each group's hits in time order), `scores` alike.
 */
export interface GroupedSearchResult {
  readonly memories: Readonly<Record<string, SearchHit[]>>[];
  readonly scores: Readonly<Record<string, number[]>>[];
  readonly importance_scores: number[];
  readonly total_count: number;
  readonly has_more: boolean;
  readonly retrieve_method: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly pending_messages: MessageMemory[];
}

export interface DeleteResult {
  /** The filters the deletion used (event_id, user_id, group_id, message_id). */
  readonly filters: string[];
  readonly deleted_messages: number;
  readonly deleted_memories: number;
  readonly episodes_reextracting: number;
  readonly episodes_deleted: number;
  readonly count: number;
}

export interface FlushResult {
  readonly group_id: string;
  readonly status_info: 'extracted' | 'extracting' | 'nothing_pending';
  readonly episodes: {
    episode_id: number;
    start_sequence: number;
    end_sequence: number;
    message_count: number;
    close_reason: string;
    status: string;
  }[];
}

export interface RequestStatus {
  readonly request_id: string;
  readonly status: 'accepted' | 'stored' | 'extracted' | 'failed';
  readonly [field: string]: unknown;
}

/** Counts of how far memory formation got for a group. */
export type MemoryStats = { readonly group_id: string; readonly embedding_model: string } & Readonly<
  Record<string, unknown>
>;

export interface ArkStored {
  readonly status: 'ok' | 'accepted';
  readonly session_id: string;
  readonly count: number;
  readonly request_id: string;
}

export interface ArkRecord {
  readonly id: number;
  readonly timestamp: string;
  readonly created_at: string;
  readonly session_id: string;
  readonly query_id: string;
  readonly message: Record<string, unknown>;
  /** The position from 1 in storage order among what the filters select, as ARK's service numbers its records. */
  readonly sequence: number;
}

export interface ArkPage {
  readonly messages: ArkRecord[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export interface SummaryRow {
  readonly memory_id: number;
  readonly conversation_id: string;
  readonly memory_text: string | null;
  readonly start_sequence: number;
  readonly end_sequence: number;
  readonly base_memory_id: number | null;
  readonly status: 'processing' | 'completed' | 'failed';
  readonly created_at: string;
  readonly generation_time_ms: number | null;
  readonly attempts: number;
  readonly error: string | null;
}

export interface AgentContext {
  readonly conversation_id: string;
  readonly memory: { memory_id: number; memory_text: string; start_sequence: number; end_sequence: number } | null;
  readonly gap_messages: Record<string, unknown>[];
}

/** A memory-service message: the code layout's fields, and the document layout's beside them. */
export interface MemoryServiceMessage {
  readonly id: string;
  readonly conversationId: string;
  /** Left out by the code layout when the message has none (an agent's), as the memory-service does. */
  readonly userId?: string | null;
  readonly channel: string;
  readonly content: unknown;
  readonly createdAt: string;
  readonly role?: string;
  readonly visibility?: string;
  readonly epoch?: number | null;
  readonly [field: string]: unknown;
}

/** @deprecated the old name of {@link MemoryServiceMessage}, kept for code written against 0.1.0. */
export type MsMessage = MemoryServiceMessage;

export interface Page<T> {
  readonly data: T[];
  readonly nextCursor?: string | null;
}
