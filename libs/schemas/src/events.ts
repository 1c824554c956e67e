import { z } from 'zod';
import { envelopeOf } from './envelope.js';
import { GroupChatMessage } from './group-chat-message.js';
import { CanonicalMessage } from './canonical-message.js';
import { ConversationMetaPatch, ConversationMetaUpsert } from './conversation-meta.js';
import { ArkMessageBatch, ArkSessionId } from './ark-messages.js';
import { EpisodicMemory } from './episodic-memory.js';
import { DeleteMemoriesFilter } from './evermemos-api.js';

export const GroupChatMessageReceived = envelopeOf('group_chat.message.received', GroupChatMessage);
export type GroupChatMessageReceived = z.infer<typeof GroupChatMessageReceived>;

export const ConversationMetaUpserted = envelopeOf('group_chat.conversation_meta.upserted', ConversationMetaUpsert);
export type ConversationMetaUpserted = z.infer<typeof ConversationMetaUpserted>;

export const ConversationMetaPatched = envelopeOf('group_chat.conversation_meta.patched', ConversationMetaPatch);
export type ConversationMetaPatched = z.infer<typeof ConversationMetaPatched>;

/**
 * EverMemOS's `DELETE /api/v1/memories`: forget the messages matching every filter given, and
 * what was derived from them. Keyed by the group when it names one, so it follows that group's
 * earlier writes.
 */
export const MemoriesDeleted = envelopeOf('group_chat.memories.deleted', DeleteMemoriesFilter);
export type MemoriesDeleted = z.infer<typeof MemoriesDeleted>;

/**
 * EverMemOS's `POST /api/v1/memories/flush`: close the group's open episode now, with what is
 * stored by then. On the group's partition, so it comes after the group's earlier writes.
 */
export const MemoriesFlushRequested = envelopeOf(
  'group_chat.memories.flush_requested',
  z.object({ group_id: z.string().min(1) }).strict(),
);
export type MemoriesFlushRequested = z.infer<typeof MemoriesFlushRequested>;

/**
 * What the group-chat input topic carries. Messages and metadata of one group share a key, so a
 * metadata change is applied exactly between the messages sent before and after it.
 */
export const GroupChatInput = z.discriminatedUnion('type', [
  GroupChatMessageReceived,
  ConversationMetaUpserted,
  ConversationMetaPatched,
  MemoriesDeleted,
  MemoriesFlushRequested,
]);
export type GroupChatInput = z.infer<typeof GroupChatInput>;

/** A batch of ARK messages for one session, as `POST /messages` took it. */
export const ArkMessagesReceived = envelopeOf('ark.messages.received', ArkMessageBatch);
export type ArkMessagesReceived = z.infer<typeof ArkMessagesReceived>;

/**
 * A session (or its stream) completed, as `POST /session/{id}/complete` asked: ends its open
 * streams on every replica. On the session's partition, so it follows the messages sent before it.
 */
export const ArkSessionCompleted = envelopeOf('ark.session.completed', z.object({ session_id: ArkSessionId }).strict());
export type ArkSessionCompleted = z.infer<typeof ArkSessionCompleted>;

/**
 * Token chunks an agent relays to a session's readers (`POST /stream/{id}`), kept for replay, in
 * the order given; on the session's partition, in order with its messages.
 */
export const ArkStreamChunksReceived = envelopeOf(
  'ark.stream.chunks',
  z.object({ session_id: ArkSessionId, chunks: z.array(z.record(z.string(), z.unknown())).min(1) }).strict(),
);
export type ArkStreamChunksReceived = z.infer<typeof ArkStreamChunksReceived>;

/**
 * One session's relayed stream forgotten (`DELETE /stream`): its chunks and its completion, so the
 * id may be streamed afresh. On the session's partition, after the chunks relayed before it.
 */
export const ArkStreamPurged = envelopeOf('ark.stream.purged', z.object({ session_id: ArkSessionId }).strict());
export type ArkStreamPurged = z.infer<typeof ArkStreamPurged>;

/** What `ingest.ark-messages.v1` carries: message batches, relayed chunks, completions and stream purges, keyed by session. */
export const ArkInput = z.discriminatedUnion('type', [
  ArkMessagesReceived,
  ArkStreamChunksReceived,
  ArkSessionCompleted,
  ArkStreamPurged,
]);
export type ArkInput = z.infer<typeof ArkInput>;

export const MessageStored = envelopeOf('conversation.message.stored', CanonicalMessage);
export type MessageStored = z.infer<typeof MessageStored>;

/** A memory extraction produced (or re-produced, with a higher version), for the indexer. */
export const MemoryExtracted = envelopeOf('memory.episodic.extracted', EpisodicMemory);
export type MemoryExtracted = z.infer<typeof MemoryExtracted>;

/** Every event the platform moves, discriminated on `type`. */
export const PlatformEvent = z.discriminatedUnion('type', [
  GroupChatMessageReceived,
  ConversationMetaUpserted,
  ConversationMetaPatched,
  ArkMessagesReceived,
  ArkStreamChunksReceived,
  ArkSessionCompleted,
  MessageStored,
  MemoryExtracted,
]);
export type PlatformEvent = z.infer<typeof PlatformEvent>;
