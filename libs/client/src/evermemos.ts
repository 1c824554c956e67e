import type { z } from 'zod';
import type {
  ConversationMetaUpsert,
  ConversationMetaPatch,
  DeleteMemoriesRequest,
  GroupChatMessage,
  ListMemoriesQuery,
  SearchMemoriesPost,
  SearchMemoriesRequest,
} from '@memstream/schemas';
import type { CallOptions, Http } from './http.js';
import type {
  Accepted,
  DeleteResult,
  EverMemOsAnswer,
  FlushResult,
  GroupedSearchResult,
  MemoryPage,
  MemoryStats,
  RequestStatus,
  SearchResult,
  WriteResult,
} from './responses.js';
import { ROUTES } from './routes.js';

const R = ROUTES.evermemos;

export interface WriteOptions extends CallOptions {
  /** false: answer 202 once the broker has the write instead of waiting for the store. */
  readonly sync?: boolean;
}

/**
 * EverMemOS group-chat memory. A message carries the writer's own `message_id`, which the server
 * stores once per group, so a write is retried after a lost connection without storing it twice.
 */
export class EverMemOs {
  constructor(private readonly http: Http) {}

  /** Stores one message; answers once it is stored (or 202 with a request id past the sync wait). */
  write(
    message: z.input<typeof GroupChatMessage>,
    options: WriteOptions = {},
  ): Promise<EverMemOsAnswer<WriteResult> | Accepted> {
    return this.http.call(R.writeMemory, { body: message, query: syncQuery(options) }, options, true);
  }

  /** A group's (or a user's) messages or episodic memories, newest first. */
  list(query: z.input<typeof ListMemoriesQuery>, options?: CallOptions): Promise<EverMemOsAnswer<MemoryPage>> {
    return this.http.call(R.listMemories, { query }, options);
  }

  /**
   * Keyword, vector, hybrid or rrf search over messages and episodic memories; with
   * `explain: true`, each hit carries `score_parts`, what its score is made of.
   */
  search(request: z.input<typeof SearchMemoriesPost>, options?: CallOptions): Promise<EverMemOsAnswer<SearchResult>> {
    // A search changes nothing: safe to repeat after a lost connection.
    return this.http.call(R.search, { body: request }, options, true);
  }

  /** The same search as a GET, for caches and links, answered as EverMemOS answers it: grouped by group. */
  searchByQuery(
    query: z.input<typeof SearchMemoriesRequest>,
    options?: CallOptions,
  ): Promise<EverMemOsAnswer<GroupedSearchResult>> {
    return this.http.call(R.searchByQuery, { query }, options);
  }

  /** Forgets the messages matching every filter given (ANDed; event_id is an episode), and what was made from them. */
  delete(filter: z.input<typeof DeleteMemoriesRequest>, options?: CallOptions): Promise<EverMemOsAnswer<DeleteResult>> {
    return this.http.call(R.deleteMemories, { query: filter }, options);
  }

  /** Closes the group's open episode and waits for its memories (`sync_mode: false` does not wait). */
  flush(
    groupId: string,
    options: CallOptions & { readonly sync?: boolean } = {},
  ): Promise<EverMemOsAnswer<FlushResult>> {
    return this.http.call(
      R.flush,
      { body: { group_id: groupId, ...(options.sync === false ? { sync_mode: false } : {}) } },
      options,
      true,
    );
  }

  /** Creates or wholly replaces a group's metadata (without `group_id`, the default config). */
  upsertConversationMeta(
    meta: z.input<typeof ConversationMetaUpsert>,
    options: WriteOptions = {},
  ): Promise<EverMemOsAnswer<Record<string, unknown>> | Accepted> {
    return this.http.call(R.upsertConversationMeta, { body: meta, query: syncQuery(options) }, options, true);
  }

  /** Changes some of a group's metadata (without `group_id`, the default config's). */
  patchConversationMeta(
    patch: z.input<typeof ConversationMetaPatch>,
    options: WriteOptions = {},
  ): Promise<EverMemOsAnswer<Record<string, unknown>> | Accepted> {
    return this.http.call(R.patchConversationMeta, { body: patch, query: syncQuery(options) }, options, true);
  }

  /** A group's metadata, or the default config it falls back to; without a group, the default config. */
  getConversationMeta(groupId?: string, options?: CallOptions): Promise<EverMemOsAnswer<Record<string, unknown>>> {
    return this.http.call(
      R.getConversationMeta,
      { query: groupId === undefined ? {} : { group_id: groupId } },
      options,
    );
  }

  /** How far memory formation got for a group. */
  memoryStats(groupId: string, options?: CallOptions): Promise<EverMemOsAnswer<MemoryStats>> {
    return this.http.call(R.memoryStats, { query: { group_id: groupId } }, options);
  }

  /** Where a write is: accepted, stored, extracted or failed. */
  requestStatus(requestId: string, options?: CallOptions): Promise<EverMemOsAnswer<RequestStatus>> {
    return this.http.call(R.requestStatus, { query: { request_id: requestId } }, options);
  }
}

function syncQuery(options: WriteOptions): { sync_mode?: 'false' } {
  return options.sync === false ? { sync_mode: 'false' } : {};
}

/** True when a write answered 202: Kafka has it, the store not yet. */
export function isAccepted(answer: EverMemOsAnswer<unknown> | Accepted): answer is Accepted {
  return !('result' in answer);
}
