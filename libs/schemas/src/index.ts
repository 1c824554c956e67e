export { envelopeOf, Actor, EVENT_ID_MAX_CHARS, CORRELATION_ID_MAX_CHARS } from './envelope.js';
export {
  SafeId,
  SAFE_ID_MAX_CHARS,
  SAFE_ID_PATTERN,
  NOT_AN_ID_PATTERN,
  SafeHeaderId,
  SAFE_ID_RULE,
  isSafeId,
  keyPart,
  KEY_PART_MAX_CHARS,
} from './ids.js';
export {
  GroupChatMessage,
  ReferItem,
  parseCreateTime,
  conversationIdOf,
  referencedIds,
  PRIVATE_CHAT_PREFIX,
  isOthersPrivateChat,
} from './group-chat-message.js';
export { senderRefusal, speakingPerson } from './sender-rule.js';
export {
  ConversationMeta,
  ConversationMetaUpsert,
  ConversationMetaPatch,
  UserDetail,
  UPDATABLE_META_FIELDS,
  IMMUTABLE_META_FIELDS,
  patchedFields,
} from './conversation-meta.js';
export { CanonicalMessage, SourceApi, Role, audienceOfMessage } from './canonical-message.js';
export { ArkMessage, ArkMessageBatch, ArkSessionId, textOf } from './ark-messages.js';
export {
  GroupChatMessageReceived,
  ConversationMetaUpserted,
  ConversationMetaPatched,
  GroupChatInput,
  MemoriesDeleted,
  MemoriesFlushRequested,
  ArkMessagesReceived,
  ArkSessionCompleted,
  ArkStreamPurged,
  ArkStreamChunksReceived,
  ArkInput,
  MessageStored,
  MemoryExtracted,
  PlatformEvent,
} from './events.js';
export { ErasureRequested, ErasureInput } from './erasure-events.js';
export { EpisodicMemory } from './episodic-memory.js';
export { RequestOutcome, REQUEST_OUTCOME_CHANNEL } from './request-outcome.js';
export {
  consumerGroup,
  consumerGroupsByTopic,
  consumerGroupsOf,
  type ConsumerOf,
  type ConsumerService,
  type PipelineGroupIds,
} from './consumer-groups.js';
export {
  CONSUMERS,
  TOPICS,
  allTopics,
  INPUT_HEADROOM_BYTES,
  inputRecordMaxBytes,
  RETENTION_MS,
  SEGMENT_MS,
  type TopicDef,
  type TopicName,
} from './topics.js';
export { LIVE_CHANNEL_PREFIX, liveChannelOf, LiveEvent } from './live-events.js';
export { ACCESS_CHANGED_CHANNEL, AccessChanged } from './access-notice.js';
export { EPISODES_EXTRACTED_CHANNEL, EpisodesExtracted } from './episodes-extracted.js';
export { EPISODE_CLOSING_CHANNEL, EpisodeClosing } from './episode-closing.js';
export {
  AccessLevel,
  GrantableLevel,
  accessDecision,
  grants,
  levelsFrom,
  type AccessDecision,
} from './access-level.js';
export {
  MemoryServiceRole,
  MemoryServiceVisibility,
  MemoryServiceChannel,
  MemoryServiceMessage,
  ConversationCreated,
  ConversationMessagesAppended,
  ConversationDeleted,
  ConversationAdminChanged,
  MembershipChanged,
  OwnershipTransfer,
  TransferRecipients,
  ConversationInput,
  type MemoryServiceInput,
} from './conversation-events.js';
export {
  levelRefusal,
  shareRefusal,
  updateRefusal,
  revokeRefusal,
  transferRefusal,
  withdrawRefusal,
  UNDER_ERASURE,
  type Standing,
  type Refusal,
} from './conversation-rules.js';
export * from './memory-service-api.js';
export * from './memory-service-answers.js';
export * from './admin-api.js';
export * from './export-format.js';
export {
  KAOS_EVENT_TYPES,
  KAOS_MAX_CONTENT_BYTES,
  KaosEventType,
  KaosEvent,
  KaosSessionCreated,
  KaosEventsAppended,
  KaosSessionDeleted,
  KaosSessionsCleaned,
  KaosInput,
  kaosSessionKey,
  kaosAgentKey,
  eventList,
  isKaosInput,
} from './kaos-events.js';
export * from './kaos-api.js';
export * from './evermemos-api.js';
export * from './evermemos-scope.js';
export * from './evermemos-answers.js';
export * from './ark-api.js';
export * from './ark-answers.js';
export * from './memory-agent-api.js';
export * from './erasure-api.js';
export * from './console-api.js';
export { IsoInstant, ISO_INSTANT_PATTERN } from './iso-instant.js';
export { TimeZone, TIME_ZONES } from './time-zones.js';
export {
  MAX_JSON_DEPTH,
  MAX_RECORD_DEPTH,
  storable,
  UNSTORABLE_TEXT,
  PROTOTYPE_KEYS_REFUSED,
  isPrototypeKey,
  jsonProblem,
  describeJsonProblem,
  type JsonProblem,
  type JsonProblemOptions,
} from './json-value-problem.js';
export {
  STORABLE_TEXT,
  STORABLE_JSON,
  STORABLE_JSON_REF,
  storableJsonSchema,
  withStorableText,
} from './storable-json-schema.js';
export { firstText, titleOf, historyTitle } from './memory-service-title.js';
