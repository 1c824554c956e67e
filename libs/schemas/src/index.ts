export { envelopeOf } from './envelope.js';
export {
  GroupChatMessage,
  ReferItem,
  parseCreateTime,
  conversationIdOf,
  referencedIds,
} from './group-chat-message.js';
export { CanonicalMessage, SourceApi, Role } from './canonical-message.js';
export { GroupChatMessageReceived, MessageStored, PlatformEvent } from './events.js';
export { TOPICS, allTopics, type TopicDef, type TopicName } from './topics.js';
