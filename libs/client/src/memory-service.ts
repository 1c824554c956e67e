import type { z } from 'zod';
import type {
  GrantableLevel,
  ContextQuery,
  CreateAgentMessagesRequest,
  CreateConversationRequest,
  CreateMessageRequest,
  CreateSummaryRequest,
  CreateUserMessageRequest,
  ForkRequest,
  ListConversationsQuery,
  ListMessagesQuery,
  ListOwnershipTransfersQuery,
  SearchMessagesRequest,
  SyncMessagesRequest,
} from '@memstream/schemas';
import { errorFromAnswer } from './errors.js';
import type { CallOptions, Http } from './http.js';
import type {
  Conversation,
  Membership,
  MemoryServiceMessage,
  OwnershipOffer,
  OwnershipOfferPage,
  Page,
  Transfer,
} from './responses.js';
import { ROUTES } from './routes.js';
import { sseFrames } from './sse.js';

// owner passes only by an ownership transfer, never by a share or a change of level
type Level = z.input<typeof GrantableLevel>;
type ConversationRoutes = typeof ROUTES.memoryServiceUser | typeof ROUTES.memoryServiceCode;

/**
 * What both memory-service layouts serve alike: conversations, forks, memberships and the
 * ownership transfer. Conversation ids are the server's, so these writes are not repeated after a
 * lost connection (429 and 503 still are: nothing was written).
 */
class Conversations<R extends ConversationRoutes> {
  constructor(
    protected readonly http: Http,
    protected readonly routes: R,
  ) {}

  create(request: z.input<typeof CreateConversationRequest> = {}, options?: CallOptions): Promise<Conversation> {
    return this.http.call(this.routes.create, { body: request }, options);
  }

  list(query: z.input<typeof ListConversationsQuery> = {}, options?: CallOptions): Promise<Page<Conversation>> {
    return this.http.call(this.routes.list, { query }, options);
  }

  get(conversationId: string, options?: CallOptions): Promise<Conversation> {
    return this.http.call(this.routes.get, { params: { conversationId } }, options);
  }

  /** Deletes the conversation and every fork of its tree. */
  async delete(conversationId: string, options?: CallOptions): Promise<void> {
    await this.http.call(this.routes.delete, { params: { conversationId } }, options);
  }

  /** The forks of the conversation's tree. */
  forks(conversationId: string, options?: CallOptions): Promise<Page<Record<string, unknown>>> {
    return this.http.call(this.routes.forks, { params: { conversationId } }, options);
  }

  memberships(conversationId: string, options?: CallOptions): Promise<Page<Membership>> {
    return this.http.call(this.routes.memberships, { params: { conversationId } }, options);
  }

  share(conversationId: string, userId: string, accessLevel: Level, options?: CallOptions): Promise<Membership> {
    return this.http.call(
      this.routes.share,
      { params: { conversationId }, body: { userId, accessLevel } },
      options,
      true,
    );
  }

  updateMembership(
    conversationId: string,
    userId: string,
    accessLevel: Level,
    options?: CallOptions,
  ): Promise<Membership> {
    return this.http.call(
      this.routes.updateMembership,
      { params: { conversationId, userId }, body: { accessLevel } },
      options,
      true,
    );
  }

  async revokeMembership(conversationId: string, userId: string, options?: CallOptions): Promise<void> {
    await this.http.call(this.routes.revokeMembership, { params: { conversationId, userId } }, options);
  }

  transferOwnership(conversationId: string, newOwnerUserId: string, options?: CallOptions): Promise<Transfer> {
    return this.http.call(
      this.routes.transferOwnership,
      { params: { conversationId }, body: { newOwnerUserId } },
      options,
    );
  }

  pendingTransfer(conversationId: string, options?: CallOptions): Promise<Transfer> {
    return this.http.call(this.routes.pendingTransfer, { params: { conversationId } }, options);
  }

  acceptTransfer(conversationId: string, options?: CallOptions): Promise<Transfer> {
    return this.http.call(this.routes.acceptTransfer, { params: { conversationId } }, options);
  }

  declineTransfer(conversationId: string, options?: CallOptions): Promise<Transfer> {
    return this.http.call(this.routes.declineTransfer, { params: { conversationId } }, options);
  }
}

/** The design document's layout for people (`/v1/user/...`): plain-text messages, forks that carry their first message. */
export class UserConversations extends Conversations<typeof ROUTES.memoryServiceUser> {
  listMessages(
    conversationId: string,
    query: { after?: string; limit?: number } = {},
    options?: CallOptions,
  ): Promise<Page<MemoryServiceMessage>> {
    return this.http.call(this.routes.listMessages, { params: { conversationId }, query }, options);
  }

  appendMessage(
    conversationId: string,
    message: z.input<typeof CreateUserMessageRequest>,
    options?: CallOptions,
  ): Promise<MemoryServiceMessage> {
    return this.http.call(this.routes.appendMessage, { params: { conversationId }, body: message }, options);
  }

  fork(
    conversationId: string,
    messageId: string,
    request: z.input<typeof ForkRequest> = {},
    options?: CallOptions,
  ): Promise<Conversation> {
    return this.http.call(this.routes.fork, { params: { conversationId, messageId }, body: request }, options);
  }

  /** Hybrid search over the messages of every conversation the caller may read. */
  search(
    request: z.input<typeof SearchMessagesRequest>,
    options?: CallOptions,
  ): Promise<Page<{ message: MemoryServiceMessage; score: number }>> {
    return this.http.call(this.routes.search, { body: request }, options, true);
  }
}

/** Events of the response resumer's stream. */
export type ResponseEvent =
  | { readonly type: 'token'; readonly text: string }
  | { readonly type: 'done' }
  | { readonly type: 'cancelled' };

/** The January 2026 code's layout (`/v1/conversations/...`): content blocks on channels, summaries, the response resumer. */
export class CodeConversations extends Conversations<typeof ROUTES.memoryServiceCode> {
  listMessages(
    conversationId: string,
    query: z.input<typeof ListMessagesQuery> = {},
    options?: CallOptions,
  ): Promise<Page<MemoryServiceMessage>> {
    return this.http.call(this.routes.listMessages, { params: { conversationId }, query }, options);
  }

  appendMessage(
    conversationId: string,
    message: z.input<typeof CreateMessageRequest>,
    options?: CallOptions,
  ): Promise<MemoryServiceMessage> {
    return this.http.call(this.routes.appendMessage, { params: { conversationId }, body: message }, options);
  }

  fork(
    conversationId: string,
    messageId: string,
    request: { title?: string | null } = {},
    options?: CallOptions,
  ): Promise<Conversation> {
    return this.http.call(this.routes.fork, { params: { conversationId, messageId }, body: request }, options);
  }

  /** Sharing where the January 2026 version put it (POST /forks); the same as `share`. */
  shareAtForks(conversationId: string, userId: string, accessLevel: Level, options?: CallOptions): Promise<Membership> {
    return this.http.call(
      this.routes.shareAtForks,
      { params: { conversationId }, body: { userId, accessLevel } },
      options,
      true,
    );
  }

  createSummary(
    conversationId: string,
    summary: z.input<typeof CreateSummaryRequest>,
    options?: CallOptions,
  ): Promise<MemoryServiceMessage> {
    return this.http.call(this.routes.createSummary, { params: { conversationId }, body: summary }, options);
  }

  /**
   * An agent's whole memory for its current epoch: unchanged is a no-op, an extension is appended
   * within the epoch, anything else starts the next one. Sending it again changes nothing, so a
   * lost answer is asked again.
   */
  syncMemory(
    conversationId: string,
    request: z.input<typeof SyncMessagesRequest>,
    options?: CallOptions,
  ): Promise<{ epoch: number; noOp: boolean; epochIncremented: boolean; messages: MemoryServiceMessage[] }> {
    return this.http.call(this.routes.syncMemory, { params: { conversationId }, body: request }, options, true);
  }

  /** Records tokens of the response in progress; `done` ends it for every reader. */
  recordResponse(
    conversationId: string,
    tokens: string[],
    done = false,
    options?: CallOptions,
  ): Promise<Record<string, unknown>> {
    return this.http.call(this.routes.recordResponse, { params: { conversationId }, body: { tokens, done } }, options);
  }

  /** Ends a pending ownership offer: the owner (or an agent) withdraws it, its recipient declines it. */
  async endTransfer(transferId: string, options?: CallOptions): Promise<void> {
    await this.http.call(this.routes.endTransfer, { params: { transferId } }, options);
  }

  /** Offers ownership to a member (the later API: 400 for anyone else, 409 while an offer is pending). */
  offerOwnership(conversationId: string, newOwnerUserId: string, options?: CallOptions): Promise<OwnershipOffer> {
    return this.http.call(this.routes.offerOwnership, { body: { conversationId, newOwnerUserId } }, options);
  }

  /** The caller's pending offers: made (`sender`), received (`recipient`) or both, a page at a time. */
  ownershipOffers(
    query: z.input<typeof ListOwnershipTransfersQuery> = {},
    options?: CallOptions,
  ): Promise<OwnershipOfferPage> {
    return this.http.call(this.routes.ownershipOffers, { query }, options);
  }

  ownershipOffer(transferId: string, options?: CallOptions): Promise<OwnershipOffer> {
    return this.http.call(this.routes.ownershipOffer, { params: { transferId } }, options);
  }

  /** Accepts the offer made to the caller: they become the owner, the former owner a manager. */
  async acceptOwnershipOffer(transferId: string, options?: CallOptions): Promise<void> {
    await this.http.call(this.routes.acceptOwnershipOffer, { params: { transferId } }, options);
  }

  cancelResponse(conversationId: string, options?: CallOptions): Promise<{ cancelled: boolean }> {
    return this.http.call(this.routes.cancelResponse, { params: { conversationId } }, options, true);
  }

  /** The response from its start, then live, until `done` or `cancelled`; throws (403) if the caller's access ends meanwhile. */
  async *followResponse(conversationId: string, options: CallOptions = {}): AsyncGenerator<ResponseEvent> {
    const response = await this.http.open(this.routes.followResponse, { params: { conversationId } }, options);
    for await (const frame of sseFrames(response, options.signal)) {
      if (frame.event === 'error') throw errorFromAnswer('memory-service', 403, JSON.parse(frame.data));
      if (frame.event === 'token') yield { type: 'token', text: (JSON.parse(frame.data) as { text: string }).text };
      else if (frame.event === 'done' || frame.event === 'cancelled') {
        yield { type: frame.event };
        return;
      }
    }
  }
}

const A = ROUTES.memoryServiceAgent;

/** What agents (API keys) call under `/v1/agent/...`. */
export class AgentConversations {
  constructor(private readonly http: Http) {}

  appendMessages(
    conversationId: string,
    request: z.input<typeof CreateAgentMessagesRequest>,
    options?: CallOptions,
  ): Promise<Page<MemoryServiceMessage>> {
    return this.http.call(A.appendMessages, { params: { conversationId }, body: request }, options);
  }

  createSummary(
    conversationId: string,
    summary: z.input<typeof CreateSummaryRequest>,
    options?: CallOptions,
  ): Promise<MemoryServiceMessage> {
    return this.http.call(A.createSummary, { params: { conversationId }, body: summary }, options);
  }

  /** The conversation for a prompt: the newest summary, then the messages after it. */
  context(
    conversationId: string,
    query: z.input<typeof ContextQuery> = {},
    options?: CallOptions,
  ): Promise<{ conversationId: string; messages: MemoryServiceMessage[]; nextAfterMessageId: string | null }> {
    return this.http.call(A.context, { params: { conversationId }, query }, options);
  }
}

/** The memory-service family in both its layouts. */
export class MemoryService {
  readonly user: UserConversations;
  readonly conversations: CodeConversations;
  readonly agent: AgentConversations;

  constructor(http: Http) {
    this.user = new UserConversations(http, ROUTES.memoryServiceUser);
    this.conversations = new CodeConversations(http, ROUTES.memoryServiceCode);
    this.agent = new AgentConversations(http);
  }
}
