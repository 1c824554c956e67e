export { GENERIC_PLAN, GENERIC_PLAN_SETTINGS, type Store, type Queryable, type QueryResult } from './store.js';
export { PgStore, type PgStoreOptions } from './pg-store.js';
export { openPglite } from './open-pglite.js';
export { migrate, loadMigrations, type Migration } from './migrate.js';
export {
  openStore,
  poolSizeOf,
  type StoreSettings,
  type PoolOptions,
  type OpenEmbeddedServer,
} from './create-store.js';
export { openReadStore, replicaName, type ReplicaSettings } from './open-replica-reads.js';
export { ReplicaReads, type ReplicaReadsOptions, type ReadOutcome, type ReplicaLag } from './replica-reads.js';
export {
  appendMessage,
  appendMessages,
  findMessage,
  listMessages,
  messagesInRange,
  lastSequence,
  pendingMessages,
  messagesByIds,
  type PendingQuery,
  type NewMessage,
  type AppendResult,
  type AppendItem,
  type ListMessagesQuery,
} from './tables/conversations/messages.js';
export { runsByShardGroup, shardGroupsOf, type ShardGroupsOf } from './shard-groups.js';
export { appendByShardGroup } from './tables/conversations/append-by-shard.js';
export { foldGroupKeywordCounts, foldKeywordCounts } from './tables/search/keyword-counts.js';
export {
  clearRetiredKeywordCounts,
  deleteSearchRows,
  insertSearchRows,
  insertSearchRowsSql,
  mendOverallKeywordSums,
  recountKeywords,
  type SearchKind,
  type SearchRowInput,
  type SearchRowKey,
} from './tables/search/search-rows.js';
export {
  upsertConversationMeta,
  patchConversationMeta,
  findConversationMeta,
  findConversationMetas,
  type StoredConversationMeta,
} from './tables/conversation-meta/conversation-meta.js';
export {
  upsertDefaultConversationMeta,
  patchDefaultConversationMeta,
  findDefaultConversationMeta,
  findEffectiveConversationMeta,
  defaultMetaOfGroup,
  type StoredDefaultConversationMeta,
} from './tables/conversation-meta/conversation-meta-default.js';
export {
  recordRequestOutcomes,
  findRequestOutcome,
  findRequestOutcomes,
  purgeRequestOutcomes,
  type StoredRequestOutcome,
} from './tables/request-outcomes/request-outcomes.js';
export {
  claimSummary,
  startSummary,
  completeSummary,
  failSummary,
  failStuckSummaries,
  findSummaryBacklog,
  findSummary,
  latestCompletedSummary,
  listSummaries,
  type SummaryMemory,
  type SummaryStatus,
} from './tables/memories/summary-memory.js';
export {
  listArkRecords,
  arkRecordsAfter,
  listArkSessions,
  type ArkListedRecord,
  type ArkRecord,
} from './tables/conversations/ark-messages.js';
export {
  arkSessionState,
  completeArkSession,
  appendStreamChunks,
  streamChunksBefore,
  listStreamChunks,
  type ArkSessionState,
} from './tables/ark/ark.js';
export {
  arkStreamStatistics,
  listArkStreams,
  purgeArkStream,
  type ArkStreamStatistics,
} from './tables/ark/ark-streams.js';
export {
  withEpisodeLock,
  lockEpisodes,
  openSpan,
  insertEpisodes,
  claimDueEpisodes,
  claimEpisodes,
  failEpisode,
  idleConversations,
  episodeOfMessage,
  listEpisodesByIds,
  spanThrough,
  episodesHolding,
  arrayLiteral,
  type Episode,
  type EpisodeStatus,
  type CloseReason,
  type OpenMessage,
  type NewEpisode,
} from './tables/memories/episodes.js';
export {
  completeEpisode,
  memoryIdOf,
  listEpisodicMemories,
  unindexedMemories,
  memoriesOfMessage,
  memoriesOfEpisodes,
  type ExtractedMemory,
  type ListMemoriesQuery,
} from './tables/memories/episodic-memories.js';
export {
  indexMessages,
  writeMessageVectors,
  writeMessageVectorsByShardGroup,
  indexMemories,
  queueMemoriesToEmbed,
  staleVectors,
  replaceVectors,
  ensureVectorIndex,
  vectorIndexName,
  vectorLiteral,
  type MessageToIndex,
  type MemoryToIndex,
  type MemoryWriteOptions,
  type SearchItemToEmbed,
} from './tables/search/search-items.js';
export {
  unembeddedItems,
  postponeUnembedded,
  queueMessagesToEmbed,
  queueItemsToEmbed,
  queueMessagesWithoutVectors,
  type UnembeddedBackoff,
} from './tables/search/unembedded-queue.js';
export { turnEmbeddingInputs, type TurnEmbeddingInput } from './tables/conversations/turn-embedding-inputs.js';
export {
  KEYWORD_TEXT_MAX_CHARS,
  keywordVectorSql,
  messageSearchText,
  memorySearchText,
} from './tables/search/search-text.js';
export { turnContext, type TurnContext, type NeighbourHit } from './tables/conversations/turn-context.js';
export {
  EXACT_SCAN_MAX_ITEMS,
  LISTED_SCOPE_MAX,
  messagesWithoutVectors,
  vectorSearch,
  withScopeListed,
  type SearchFilters,
  type SearchHit,
} from './tables/search/search.js';
export { MAX_QUERY_TERMS, keywordSearch } from './tables/search/keyword-search.js';
export { scoringFloor } from './tables/search/keyword-bounds.js';
export { forgetMessages, forgetMessagesIn, type ForgetFilter, type ForgetResult } from './lifecycle/forget.js';
export { memoryStats, type MemoryStats } from './tables/memories/memory-stats.js';
export { storeBusJournal } from './tables/bus-journal/bus-journal.js';
export {
  accessLevelOf,
  accessLevelsOf,
  conversationInUse,
  claimConversation,
  conversationsVisibleTo,
  visibleTo,
  audienceIn,
  standingOf,
} from './tables/memberships/conversation-access.js';
export {
  insertConversation,
  findConversation,
  groupOfConversation,
  listConversations,
  listGroupConversations,
  deleteConversationGroup,
  setConversationTitle,
  titleUntitledConversation,
  type ConversationRecord,
  type NewConversation,
  type ListConversationsQuery,
} from './tables/conversations/memory-service-conversations.js';
export {
  viewSegments,
  findInView,
  messageBefore,
  listView,
  memoryServiceMessagesByKeys,
  type ViewSegment,
  type ViewFilter,
  type ViewPosition,
  type MemoryServiceStoredMessage,
} from './tables/conversations/memory-service-messages.js';
export {
  listMemberships,
  findMembership,
  setMembership,
  removeMembership,
  requestTransfer,
  findTransfer,
  pendingTransfer,
  settleTransfer,
  type MembershipRecord,
  type TransferRecord,
} from './tables/memberships/memory-service-memberships.js';
export {
  findTransferOffer,
  listTransferOffers,
  type TransferOffer,
  type TransferOfferQuery,
} from './tables/memberships/memory-service-transfer-offers.js';
export {
  lockKaosAgent,
  findKaosSession,
  insertKaosSession,
  deleteKaosSessions,
  evictKaosSessions,
  staleKaosSessions,
  appendKaosEvents,
  listKaosSessions,
  kaosSessionEvents,
  kaosEventBytes,
  type KaosEventRow,
  latestKaosEvents,
  kaosStats,
  type KaosSessionRow,
  type KaosViewer,
} from './tables/kaos/kaos.js';
export { kaosSessionConversation } from './tables/kaos/kaos-session-names.js';
export {
  recordAudit,
  listAudit,
  type AuditEntry,
  type AuditRecord,
  type AuditQuery,
} from './tables/audit-log/audit-log.js';
export {
  purgeConversationGroups,
  addPurgeCounts,
  NO_PURGE,
  type PurgeCounts,
  type PurgeOptions,
  type PurgeResult,
} from './lifecycle/purge-conversations.js';
export {
  EVICTABLE_RESOURCES,
  createEvictionJob,
  findEvictionJob,
  settleDiscards,
  finishEvictionJob,
  evictionProgress,
  type EvictableResource,
  type EvictionJob,
  type EvictionStatus,
  type NewEvictionJob,
} from './tables/jobs/eviction-jobs.js';
export { claimEvictionJob, evictBatch, type EvictionStep } from './lifecycle/evict.js';
export {
  adminListConversations,
  adminFindConversation,
  restoreConversationGroup,
  conversationsOwnedBy,
  type AdminConversationRecord,
  type AdminConversationQuery,
} from './tables/conversations/admin-conversations.js';
export {
  listConversationsAcrossFamilies,
  type ConversationAcrossFamilies,
  type ConversationsAcrossFamiliesQuery,
} from './tables/conversations/conversations-across-families.js';
export {
  createErasureJob,
  findErasureJob,
  listErasureJobs,
  claimErasureJob,
  erasureInProgress,
  runErasureBatch,
  finishErasurePass,
  noteErasureReason,
  advanceErasureJob,
  failErasureJob,
  renewErasureLease,
  FIRST_ERASURE_STEP,
  type ErasureJob,
  type ErasureStatus,
  type NewErasureJob,
} from './tables/jobs/erasure-jobs.js';
export {
  ERASURE_FAMILIES,
  ERASURE_STORES,
  noErasureCounts,
  addCount,
  addErasureCounts,
  type ErasureBatch,
  type ErasureCounts,
  type ErasureFamily,
  type ErasureStore,
} from './participant/erasure-counts.js';
export {
  eraseKeyedRecords,
  eraseOwnedConversations,
  eraseSentMessages,
  ownDataRemaining,
  holdBackPersonWrites,
} from './lifecycle/erase-person.js';
export { eraseWrittenAbout } from './lifecycle/erase-about-person.js';
export { claimJobLease, releaseJobLease, renewJobLease } from './tables/jobs/job-leases.js';
export { exportRecords, type ExportScope } from './lifecycle/export-reader.js';
export { importRecords, advanceSequences, type BatchOutcome } from './lifecycle/import-writer.js';
export {
  beginImportScope,
  finishImportScope,
  type ImportScope,
  type ImportTouched,
} from './lifecycle/import-scope.js';
export { cutoffOf } from './retention-cutoff.js';
export { type DistributionKind, readDistribution, type TableDistribution } from './distribution.js';
export { type LayoutOutcome, type LayoutSettings, layOut, type StoreLayout } from './layout/store-layout.js';
export { PARTITIONS } from './layout/partition-table.js';
export { blockersOf } from './layout/blockers.js';
export { type TableFacts, tableFacts } from './layout/table-facts.js';
export {
  type CitusStep,
  citusPlan,
  distributeOnCitus,
  type ForeignKeyEdge,
  readForeignKeys,
} from './distribute-citus.js';
export {
  RETENTION_KINDS,
  RETENTION_METADATA_KEY,
  addRetentionCounts,
  noRetentionCounts,
  retentionOverrides,
  retentionPasses,
  type RetentionBatch,
  type RetentionKind,
  type RetentionCounts,
  type RetentionPass,
  type RetentionScope,
} from './lifecycle/retention.js';
export { EVICT_ORDER, PARTICIPANTS, PURGE_ORDER, RETAIN_ORDER } from './lifecycle/registry.js';
export {
  PURGE_STAGES,
  RETAIN_STAGES,
  type LifecycleParticipant,
  type TableEvict,
  type TablePurge,
  type TableRetain,
} from './participant/participant.js';
