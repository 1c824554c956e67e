import {
  AdminActionRequest,
  AdminConversationParams,
  AdminGetConversationQuery,
  AdminListConversationsQuery,
  AdminMessagesQuery,
  AdminSearchRequest,
  AuditLogQuery,
  ConsoleConversationsQuery,
  DeadLettersQuery,
  ExportQuery,
  ImportQuery,
  ImportRequest,
  EvictionJobParams,
  ErasureListQuery,
  ErasureParams,
  ErasureRequest,
  MyErasureRequest,
  EvictQuery,
  EvictRequest,
  JustificationQuery,
  ArkListQuery,
  ArkPurgeQuery,
  ArkMessageBatch,
  ArkSessionParams,
  ArkStreamChunks,
  ArkStreamQuery,
  ContextQuery,
  ConversationIdParams,
  ConversationMetaUpsert,
  ConversationMetaPatch,
  ConversationMetaQuery,
  CreateAgentMessagesRequest,
  CreateConversationRequest,
  CreateMessageRequest,
  CreateOwnershipTransferRequest,
  CreateSummaryRequest,
  CreateUserMessageRequest,
  DeleteMemoriesBody,
  DeleteMemoriesRequest,
  FlushMemoriesRequest,
  ForkRequest,
  GroupChatMessage,
  KaosAddEventsRequest,
  KaosCleanupRequest,
  KaosContextQuery,
  KaosCreateSessionRequest,
  KaosEventsQuery,
  KaosAgentHeaders,
  KaosHeaders,
  KaosListSessionsQuery,
  KaosSessionEventsQuery,
  KaosSessionParams,
  ListConversationsQuery,
  ListMemoriesQuery,
  ListMessagesQuery,
  ListOwnershipTransfersQuery,
  MemberParams,
  TransferIdParams,
  MemoryAgentContextQuery,
  MemoryAgentSummariesQuery,
  MemoryStatsQuery,
  MessageIdParams,
  RecordResponseRequest,
  RequestStatusQuery,
  SearchMemoriesPost,
  SearchMemoriesRequest,
  SearchMessagesRequest,
  SyncMessagesRequest,
  ShareRequest,
  SyncModeQuery,
  TransferOwnershipRequest,
  UpdateMembershipRequest,
} from '@memstream/schemas';
import { route } from './route.js';

const evermemos = {
  writeMemory: route({
    family: 'evermemos',
    method: 'POST',
    path: '/api/v1/memories',
    query: SyncModeQuery,
    body: GroupChatMessage,
  }),
  listMemories: route({ family: 'evermemos', method: 'GET', path: '/api/v1/memories', query: ListMemoriesQuery }),
  deleteMemories: route({
    family: 'evermemos',
    method: 'DELETE',
    path: '/api/v1/memories',
    query: DeleteMemoriesRequest,
    // the filters may also come as a JSON body (the document's form: it names at least one)
    body: DeleteMemoriesBody,
  }),
  upsertConversationMeta: route({
    family: 'evermemos',
    method: 'POST',
    path: '/api/v1/memories/conversation-meta',
    query: SyncModeQuery,
    body: ConversationMetaUpsert,
  }),
  patchConversationMeta: route({
    family: 'evermemos',
    method: 'PATCH',
    path: '/api/v1/memories/conversation-meta',
    query: SyncModeQuery,
    body: ConversationMetaPatch,
  }),
  getConversationMeta: route({
    family: 'evermemos',
    method: 'GET',
    path: '/api/v1/memories/conversation-meta',
    query: ConversationMetaQuery,
  }),
  searchByQuery: route({
    family: 'evermemos',
    method: 'GET',
    path: '/api/v1/memories/search',
    query: SearchMemoriesRequest,
  }),
  search: route({
    family: 'evermemos',
    method: 'POST',
    path: '/api/v1/memories/search',
    body: SearchMemoriesPost,
    gateway: false,
  }),
  flush: route({ family: 'evermemos', method: 'POST', path: '/api/v1/memories/flush', body: FlushMemoriesRequest }),
  memoryStats: route({ family: 'evermemos', method: 'GET', path: '/api/v1/stats/memory', query: MemoryStatsQuery }),
  requestStatus: route({
    family: 'evermemos',
    method: 'GET',
    path: '/api/v1/stats/request',
    query: RequestStatusQuery,
  }),
};

const memoryAgent = {
  summaries: route({
    family: 'memory-agent',
    method: 'GET',
    path: '/api/v1/summaries',
    query: MemoryAgentSummariesQuery,
  }),
  context: route({ family: 'memory-agent', method: 'GET', path: '/api/v1/context', query: MemoryAgentContextQuery }),
};

const ark = {
  postMessages: route({ family: 'ark', method: 'POST', path: '/messages', body: ArkMessageBatch }),
  listMessages: route({ family: 'ark', method: 'GET', path: '/messages', query: ArkListQuery }),
  purgeMessages: route({ family: 'ark', method: 'DELETE', path: '/messages', query: ArkPurgeQuery }),
  sessions: route({ family: 'ark', method: 'GET', path: '/sessions' }),
  stream: route({
    family: 'ark',
    method: 'GET',
    path: '/stream/{session_id}',
    params: ArkSessionParams,
    query: ArkStreamQuery,
    stream: true,
  }),
  relayChunks: route({
    family: 'ark',
    method: 'POST',
    path: '/stream/{session_id}',
    params: ArkSessionParams,
    body: ArkStreamChunks,
  }),
  completeSession: route({
    family: 'ark',
    method: 'POST',
    path: '/session/{session_id}/complete',
    params: ArkSessionParams,
  }),
  completeStream: route({
    family: 'ark',
    method: 'POST',
    path: '/stream/{session_id}/complete',
    params: ArkSessionParams,
  }),
  streamStatistics: route({ family: 'ark', method: 'GET', path: '/stream-statistics' }),
  purgeStreams: route({ family: 'ark', method: 'DELETE', path: '/stream' }),
};

/** What both memory-service layouts serve alike, under their own base path. */
function conversationRoutes<const B extends string>(base: B) {
  const one = `${base}/{conversationId}` as const;
  const family = 'memory-service';
  return {
    create: route({ family, method: 'POST', path: base, body: CreateConversationRequest }),
    list: route({ family, method: 'GET', path: base, query: ListConversationsQuery }),
    get: route({ family, method: 'GET', path: one, params: ConversationIdParams }),
    delete: route({ family, method: 'DELETE', path: one, params: ConversationIdParams }),
    memberships: route({ family, method: 'GET', path: `${one}/memberships`, params: ConversationIdParams }),
    share: route({
      family,
      method: 'POST',
      path: `${one}/memberships`,
      params: ConversationIdParams,
      body: ShareRequest,
    }),
    updateMembership: route({
      family,
      method: 'PATCH',
      path: `${one}/memberships/{userId}`,
      params: MemberParams,
      body: UpdateMembershipRequest,
    }),
    revokeMembership: route({ family, method: 'DELETE', path: `${one}/memberships/{userId}`, params: MemberParams }),
    transferOwnership: route({
      family,
      method: 'POST',
      path: `${one}/transfer-ownership`,
      params: ConversationIdParams,
      body: TransferOwnershipRequest,
    }),
    pendingTransfer: route({ family, method: 'GET', path: `${one}/transfer-ownership`, params: ConversationIdParams }),
    acceptTransfer: route({
      family,
      method: 'POST',
      path: `${one}/transfer-ownership/accept`,
      params: ConversationIdParams,
    }),
    declineTransfer: route({
      family,
      method: 'POST',
      path: `${one}/transfer-ownership/decline`,
      params: ConversationIdParams,
    }),
    forks: route({ family, method: 'GET', path: `${one}/forks`, params: ConversationIdParams }),
  };
}

const USER = '/v1/user/conversations';
const CODE = '/v1/conversations';

/** The design document's layout: people under /v1/user, agents under /v1/agent. */
const memoryServiceUser = {
  ...conversationRoutes(USER),
  listMessages: route({
    family: 'memory-service',
    method: 'GET',
    path: `${USER}/{conversationId}/messages`,
    params: ConversationIdParams,
    query: ListMessagesQuery.pick({ after: true, limit: true }),
  }),
  appendMessage: route({
    family: 'memory-service',
    method: 'POST',
    path: `${USER}/{conversationId}/messages`,
    params: ConversationIdParams,
    body: CreateUserMessageRequest,
  }),
  fork: route({
    family: 'memory-service',
    method: 'POST',
    path: `${USER}/{conversationId}/messages/{messageId}/fork`,
    params: MessageIdParams,
    body: ForkRequest,
  }),
  search: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/user/search/messages',
    body: SearchMessagesRequest,
    gateway: false,
  }),
};

/** The January 2026 code's layout, which the service's generated clients call. */
const memoryServiceCode = {
  ...conversationRoutes(CODE),
  listMessages: route({
    family: 'memory-service',
    method: 'GET',
    path: `${CODE}/{conversationId}/messages`,
    params: ConversationIdParams,
    query: ListMessagesQuery,
  }),
  appendMessage: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/messages`,
    params: ConversationIdParams,
    body: CreateMessageRequest,
  }),
  fork: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/messages/{messageId}/fork`,
    params: MessageIdParams,
    body: ForkRequest.pick({ title: true }),
  }),
  /** Sharing where the January 2026 version put it. */
  shareAtForks: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/forks`,
    params: ConversationIdParams,
    body: ShareRequest,
  }),
  syncMemory: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/memory/messages/sync`,
    params: ConversationIdParams,
    body: SyncMessagesRequest,
  }),
  createSummary: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/summaries`,
    params: ConversationIdParams,
    body: CreateSummaryRequest,
  }),
  recordResponse: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/response`,
    params: ConversationIdParams,
    body: RecordResponseRequest,
  }),
  followResponse: route({
    family: 'memory-service',
    method: 'GET',
    path: `${CODE}/{conversationId}/response`,
    params: ConversationIdParams,
    stream: true,
  }),
  cancelResponse: route({
    family: 'memory-service',
    method: 'POST',
    path: `${CODE}/{conversationId}/cancel-response`,
    params: ConversationIdParams,
  }),
  /** The memory-service's own route for ending an ownership offer, by the transfer's id. */
  endTransfer: route({
    family: 'memory-service',
    method: 'DELETE',
    path: '/v1/ownership-transfers/{transferId}',
    params: TransferIdParams,
  }),
  /** The memory-service's later transfer API: offers to members, by their own id. */
  offerOwnership: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/ownership-transfers',
    body: CreateOwnershipTransferRequest,
  }),
  ownershipOffers: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/ownership-transfers',
    query: ListOwnershipTransfersQuery,
  }),
  ownershipOffer: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/ownership-transfers/{transferId}',
    params: TransferIdParams,
  }),
  acceptOwnershipOffer: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/ownership-transfers/{transferId}/accept',
    params: TransferIdParams,
  }),
};

const AGENT = '/v1/agent/conversations/{conversationId}';
const memoryServiceAgent = {
  appendMessages: route({
    family: 'memory-service',
    method: 'POST',
    path: `${AGENT}/messages`,
    params: ConversationIdParams,
    body: CreateAgentMessagesRequest,
  }),
  createSummary: route({
    family: 'memory-service',
    method: 'POST',
    path: `${AGENT}/summaries`,
    params: ConversationIdParams,
    body: CreateSummaryRequest,
  }),
  context: route({
    family: 'memory-service',
    method: 'GET',
    path: `${AGENT}/context`,
    params: ConversationIdParams,
    query: ContextQuery,
  }),
};

const SESSION = '/memory/sessions/{sessionId}';
const kaos = {
  createSession: route({
    family: 'kaos',
    method: 'POST',
    path: '/memory/sessions',
    headers: KaosHeaders,
    body: KaosCreateSessionRequest,
  }),
  listSessions: route({
    family: 'kaos',
    method: 'GET',
    path: '/memory/sessions',
    headers: KaosAgentHeaders,
    query: KaosListSessionsQuery,
  }),
  getSession: route({
    family: 'kaos',
    method: 'GET',
    path: SESSION,
    headers: KaosAgentHeaders,
    params: KaosSessionParams,
  }),
  deleteSession: route({
    family: 'kaos',
    method: 'DELETE',
    path: SESSION,
    headers: KaosAgentHeaders,
    params: KaosSessionParams,
  }),
  addEvents: route({
    family: 'kaos',
    method: 'POST',
    path: `${SESSION}/events`,
    headers: KaosHeaders,
    params: KaosSessionParams,
    body: KaosAddEventsRequest,
  }),
  sessionEvents: route({
    family: 'kaos',
    method: 'GET',
    path: `${SESSION}/events`,
    headers: KaosAgentHeaders,
    params: KaosSessionParams,
    query: KaosSessionEventsQuery,
  }),
  context: route({
    family: 'kaos',
    method: 'GET',
    path: `${SESSION}/context`,
    headers: KaosAgentHeaders,
    params: KaosSessionParams,
    query: KaosContextQuery,
  }),
  events: route({
    family: 'kaos',
    method: 'GET',
    path: '/memory/events',
    headers: KaosAgentHeaders,
    query: KaosEventsQuery,
  }),
  cleanup: route({
    family: 'kaos',
    method: 'POST',
    path: '/memory/cleanup',
    headers: KaosAgentHeaders,
    body: KaosCleanupRequest,
  }),
  stats: route({ family: 'kaos', method: 'GET', path: '/memory/stats', headers: KaosAgentHeaders }),
};

const ADMIN = '/v1/admin/conversations/{id}';
/** memory-service's admin and auditor API, in memory-service's error shape, and the audit log read. */
const admin = {
  listConversations: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/admin/conversations',
    query: AdminListConversationsQuery,
  }),
  getConversation: route({
    family: 'memory-service',
    method: 'GET',
    path: ADMIN,
    params: AdminConversationParams,
    query: AdminGetConversationQuery,
  }),
  deleteConversation: route({
    family: 'memory-service',
    method: 'DELETE',
    path: ADMIN,
    params: AdminConversationParams,
    body: AdminActionRequest,
  }),
  restoreConversation: route({
    family: 'memory-service',
    method: 'POST',
    path: `${ADMIN}/restore`,
    params: AdminConversationParams,
    body: AdminActionRequest,
  }),
  messages: route({
    family: 'memory-service',
    method: 'GET',
    path: `${ADMIN}/messages`,
    params: AdminConversationParams,
    query: AdminMessagesQuery,
  }),
  memberships: route({
    family: 'memory-service',
    method: 'GET',
    path: `${ADMIN}/memberships`,
    params: AdminConversationParams,
    query: AdminGetConversationQuery,
  }),
  search: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/admin/search/messages',
    query: JustificationQuery,
    body: AdminSearchRequest,
    gateway: false,
  }),
  evict: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/admin/evict',
    query: EvictQuery,
    body: EvictRequest,
  }),
  evictionJob: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/admin/evict/jobs/{jobId}',
    params: EvictionJobParams,
  }),
  auditLog: route({ family: 'memory-service', method: 'GET', path: '/v1/admin/audit', query: AuditLogQuery }),
  erase: route({ family: 'memory-service', method: 'POST', path: '/v1/admin/erasures', body: ErasureRequest }),
  erasure: route({ family: 'memory-service', method: 'GET', path: '/v1/admin/erasures/{id}', params: ErasureParams }),
  erasures: route({ family: 'memory-service', method: 'GET', path: '/v1/admin/erasures', query: ErasureListQuery }),
  roles: route({ family: 'memory-service', method: 'GET', path: '/v1/admin/roles' }),
  eraseMe: route({ family: 'memory-service', method: 'POST', path: '/v1/me/erasure', body: MyErasureRequest }),
  myErasure: route({ family: 'memory-service', method: 'GET', path: '/v1/me/erasures/{id}', params: ErasureParams }),
  exportData: route({ family: 'memory-service', method: 'GET', path: '/v1/admin/exports', query: ExportQuery }),
  exportOwnData: route({ family: 'memory-service', method: 'GET', path: '/v1/me/export' }),
  importData: route({
    family: 'memory-service',
    method: 'POST',
    path: '/v1/admin/imports',
    query: ImportQuery,
    body: ImportRequest,
  }),
  deadLetters: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/admin/dead-letters',
    query: DeadLettersQuery,
  }),
};

/** memstream's own reads across families, for the console (memory-service's error shape). */
const consoleReads = {
  conversations: route({
    family: 'memory-service',
    method: 'GET',
    path: '/v1/console/conversations',
    query: ConsoleConversationsQuery,
  }),
  pipeline: route({ family: 'memory-service', method: 'GET', path: '/v1/console/pipeline' }),
};

/** Every operation the client calls, by family. */
export const ROUTES = {
  evermemos,
  memoryAgent,
  ark,
  memoryServiceUser,
  memoryServiceCode,
  memoryServiceAgent,
  admin,
  kaos,
  console: consoleReads,
};
