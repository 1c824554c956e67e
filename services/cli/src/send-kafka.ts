import { createHash, randomUUID } from 'node:crypto';
import { KafkaBus, publishEvents } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { TOPICS, type GroupChatInput, type GroupChatMessage, type ConversationMeta } from '@memstream/schemas';
import type { Conversation } from './group-chat-file.js';
import { runInLanes } from './lanes.js';
import type { Tally } from './tally.js';

export interface KafkaTarget {
  readonly brokers: readonly string[];
  readonly topicPrefix: string;
  /** Partitions of the input topic if this import is the first to create it. */
  readonly partitions: number;
  readonly concurrency: number;
  /** Events per publish call; the bus coalesces concurrent calls into larger requests. */
  readonly chunkSize?: number;
  readonly requestTimeoutMs?: number;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

const SOURCE = 'memstream-import';

/**
 * Produces straight to the public input topic, the same envelopes the gateway writes. Each
 * conversation's events go in file order, chunk after chunk, so its messages keep their order
 * on the group's partition. Event ids are derived from the content, so a re-run of the same file
 * is recognised by the converter; which messages were duplicates is only known there.
 */
export async function sendOverKafka(
  conversations: readonly Conversation[],
  target: KafkaTarget,
  tally: Tally,
): Promise<void> {
  const bus = new KafkaBus({
    brokers: target.brokers,
    clientId: SOURCE,
    topicPrefix: target.topicPrefix,
    log: target.log,
    defaultPartitions: target.partitions,
    replicationFactor: 1,
    requestTimeoutMs: target.requestTimeoutMs ?? 30_000,
    // a one-shot command has no scraper: its series are kept and dropped with it
    metrics: new Metrics(),
  });
  const correlationId = `import-${randomUUID()}`;
  const chunkSize = target.chunkSize ?? 500;
  try {
    await bus.ensureTopics([{ name: TOPICS.groupChatInput.name }, { name: TOPICS.groupChatInput.dlq }]);
    await runInLanes(
      conversations,
      (c) => c.meta.group_id,
      target.concurrency,
      async (conversation) => {
        const events = eventsOf(conversation, correlationId);
        let published = 0;
        try {
          for (let i = 0; i < events.length; i += chunkSize) {
            target.signal?.throwIfAborted();
            const chunk = events.slice(i, i + chunkSize);
            await publishEvents(bus, TOPICS.groupChatInput, chunk);
            const messages = chunk.filter((e) => e.type === 'group_chat.message.received').length;
            published += messages;
            tally.succeeded('accepted', messages);
          }
        } catch (err) {
          // Later chunks would land after a gap in the group's order: the rest of the conversation stops here.
          const left = conversation.messages.length - published;
          tally.failed(
            `conversation ${conversation.index}`,
            `${left} messages not sent: ${(err as Error).message}`,
            left,
          );
        }
      },
    );
  } catch (err) {
    const left = conversations.reduce((n, c) => n + c.messages.length, 0);
    tally.failed('kafka', `${left} messages not sent: ${(err as Error).message}`, left);
  } finally {
    await bus.close();
  }
}

function eventsOf(conversation: Conversation, correlationId: string): GroupChatInput[] {
  const occurredAt = new Date().toISOString();
  const common = { occurred_at: occurredAt, correlation_id: correlationId, source: SOURCE };
  return [
    {
      id: metaEventId(conversation.meta),
      type: 'group_chat.conversation_meta.upserted',
      ...common,
      data: conversation.meta,
    },
    ...conversation.messages.map(
      (message): GroupChatInput => ({
        id: messageEventId(message),
        type: 'group_chat.message.received',
        ...common,
        data: message,
      }),
    ),
  ];
}

/** Stable per message, so a re-run carries the same ids; hashed when a long group id would pass the 200-character limit. */
export function messageEventId(message: GroupChatMessage): string {
  return bounded(`import:${message.group_id ?? ''}:${message.message_id}`);
}

/**
 * The converter applies a metadata event id once, so the id follows the content: re-importing
 * unchanged metadata is a no-op, changed metadata is applied.
 */
export function metaEventId(meta: ConversationMeta): string {
  return bounded(`import:${meta.group_id}:meta:${sha256(JSON.stringify(meta)).slice(0, 16)}`);
}

function bounded(id: string): string {
  return id.length <= 200 ? id : `import:sha256:${sha256(id)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
