import type { z } from 'zod';
import { ArkInput, GroupChatInput, MemoryExtracted, MessageStored } from './events.js';
import { ConversationInput } from './conversation-events.js';
import { conversationIdOf } from './group-chat-message.js';
import { ErasureInput } from './erasure-events.js';

/**
 * A topic binds a name, the schema of its events and the key that orders them. Names follow
 * `<domain>.<subject>.v<N>`; every topic has a `.dlq` twin for events that could not be handled.
 */
export interface TopicDef<S extends z.ZodType> {
  readonly name: string;
  readonly dlq: string;
  readonly schema: S;
  /** The Kafka key: events with one key share a partition, so their order holds. */
  readonly keyOf: (event: z.infer<S>) => string;
  /**
   * Part of the public input contract: producers other than ours write it, so each record's
   * JSON is held to what the HTTP API holds bodies to (jsonProblem) before its schema is applied.
   */
  readonly publicInput: boolean;
}

function topic<S extends z.ZodType>(
  name: string,
  schema: S,
  keyOf: (event: z.infer<S>) => string,
  { publicInput = false }: { publicInput?: boolean } = {},
): TopicDef<S> {
  return { name, dlq: `${name}.dlq`, schema, keyOf, publicInput };
}

const PUBLIC_INPUT = { publicInput: true } as const;

/** The Kafka key of the default conversation metadata (any key would do; this one says what it is). */
const DEFAULT_META_KEY = 'conversation-meta:default';

export const TOPICS = {
  /**
   * Public input contract: EverMemOS messages and conversation metadata, from the gateway or
   * straight from Kafka producers. Keyed by the group (a private chat by `private:<sender>`).
   */
  groupChatInput: topic(
    'ingest.group-chat.v1',
    GroupChatInput,
    (e) => {
      if (e.type === 'group_chat.message.received') return conversationIdOf(e.data);
      // a deletion across groups orders with the sender's private chat, or with nothing in particular
      if (e.type === 'group_chat.memories.deleted')
        return (
          e.data.group_id ??
          (e.data.user_id !== undefined
            ? `private:${e.data.user_id}`
            : e.data.message_id !== undefined
              ? `message:${e.data.message_id}`
              : `event:${e.data.event_id}`)
        );
      // the default config is no group's: its changes order among themselves
      return e.data.group_id ?? DEFAULT_META_KEY;
    },
    PUBLIC_INPUT,
  ),
  /**
   * ARK message batches (one event is one batch, stored whole and in order) and session
   * completions, keyed by session.
   */
  arkMessages: topic('ingest.ark-messages.v1', ArkInput, (e) => e.data.session_id, PUBLIC_INPUT),
  /**
   * Public input contract of the memory-service family (conversations, messages, forks,
   * memberships and ownership transfers, keyed by the conversation group) and of KAOS agent
   * memory (sessions and their events, keyed by the session within its agent).
   */
  conversationInput: topic('ingest.conversations.v1', ConversationInput, (e) => e.data.group_id, PUBLIC_INPUT),
  /** Canonical messages after they are stored, for the memory, embedding and summary consumers. */
  messagesStored: topic('conversation.message-stored.v1', MessageStored, (e) => e.data.conversation_id),
  /** Episodic memories as extraction stores them, for the indexer. Keyed by conversation. */
  memoriesExtracted: topic('memory.episodic-extracted.v1', MemoryExtracted, (e) => e.data.conversation_id),
  /** Erasures of a person, as the admin and person APIs accept them; keyed by the person. Internal. */
  erasures: topic('governance.erasures.v1', ErasureInput, (e) => e.data.user_id),
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]['name'];

/**
 * Which consumer services read each topic. Each of them subscribes through a wiring typed by this
 * map (see subscribeWiring in @memstream/bus), so a topic listed here without its handler, or a
 * handler of a topic not listed, fails the type check.
 */
export const CONSUMERS = {
  groupChatInput: ['converter'],
  arkMessages: ['converter'],
  conversationInput: ['converter'],
  messagesStored: ['indexer', 'extractor', 'summarizer'],
  memoriesExtracted: ['indexer'],
  erasures: ['governance'],
} as const satisfies { readonly [K in keyof typeof TOPICS]: readonly string[] };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How long Kafka keeps a record, set when the topic is created (docs/kafka-topics.md#retention).
 * A topic consumers read is kept as long as a consumer may be down without losing acknowledged
 * writes (retention deletes whether or not a group has read the record); an erasure deletes the
 * consumed part earlier. Dead letters wait for a person to look at them, so they stay longer.
 */
export const RETENTION_MS = { consumed: 7 * DAY_MS, deadLetters: 14 * DAY_MS } as const;

/**
 * Kafka's `segment.ms` of every topic: records an erasure cut are unreadable at once, but their
 * bytes stay in the segment file until the whole file is past the cut and deleted. A day's
 * segments bound that to about a day (Kafka's default would be 7).
 */
export const SEGMENT_MS = DAY_MS;

/**
 * What a message gains between its input record and its `conversation.message-stored.v1` event
 * (sequence, times, names, the conversation's metadata), with room to spare. A record of an input
 * topic larger than the broker's limit less this is refused before anything of it is stored: one
 * just under the limit was stored and then dead-lettered, as its stored event could not be
 * published. The topics themselves keep the broker's limit, which applies to a whole batch: a
 * lower one refused librdkafka's full uncompressed batches (its batch.size is 1,000,000).
 */
export const INPUT_HEADROOM_BYTES = 64 * 1024;

/** The largest record of an input topic the converter takes, given the broker's limit (KAFKA_MAX_MESSAGE_BYTES). */
export function inputRecordMaxBytes(brokerMaxBytes: number): number {
  return brokerMaxBytes - INPUT_HEADROOM_BYTES;
}

/** Every topic of the catalogue and its dead-letter twin, in the shape `bus.ensureTopics` takes. */
export function allTopics(): { name: string; retentionMs: number; segmentMs: number }[] {
  return Object.values(TOPICS).flatMap((t) => [
    { name: t.name, retentionMs: RETENTION_MS.consumed, segmentMs: SEGMENT_MS },
    { name: t.dlq, retentionMs: RETENTION_MS.deadLetters, segmentMs: SEGMENT_MS },
  ]);
}
