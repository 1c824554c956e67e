import type { z } from 'zod';
import { GroupChatMessageReceived, MessageStored } from './events.js';
import { conversationIdOf } from './group-chat-message.js';

/**
 * A topic binds a name, the schema of its events and the key that orders them. Names follow
 * `<domain>.<event>.v<N>`; every topic has a `.dlq` twin for events that could not be handled.
 */
export interface TopicDef<S extends z.ZodType> {
  readonly name: string;
  readonly dlq: string;
  readonly schema: S;
  /** The Kafka key: events with one key share a partition, so their order holds. */
  readonly keyOf: (event: z.infer<S>) => string;
}

function topic<S extends z.ZodType>(name: string, schema: S, keyOf: (event: z.infer<S>) => string): TopicDef<S> {
  return { name, dlq: `${name}.dlq`, schema, keyOf };
}

export const TOPICS = {
  /** Public input contract: chat apps and Kafka producers write EverMemOS messages here. */
  groupChatMessages: topic('ingest.group-chat-message.v1', GroupChatMessageReceived, (e) => conversationIdOf(e.data)),
  /** Canonical messages after they are stored, for the memory, embedding and summary consumers. */
  messagesStored: topic('conversation.message-stored.v1', MessageStored, (e) => e.data.conversation_id),
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]['name'];

/** Every topic of the catalogue and its dead-letter twin, in the shape `bus.ensureTopics` takes. */
export function allTopics(): { name: string }[] {
  return Object.values(TOPICS).flatMap((t) => [{ name: t.name }, { name: t.dlq }]);
}
