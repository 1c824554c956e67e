import { createHash } from 'node:crypto';
import { EVENT_ID_MAX_CHARS, type CanonicalMessage, type MessageStored } from '@memstream/schemas';

/**
 * The event that tells the memory consumers (indexer, extractor, summarizer) a message is stored.
 * Its id is `<conversation>:<seq>`, readable in logs and dead letters, while that fits the topic's
 * limit on event ids. A conversation id may have 255 characters (a private chat 263), so a long
 * one is replaced by its digest: otherwise the event fails the topic's schema in every consumer
 * and the message, stored and listed, would never be searchable, summarized or in an episode.
 */
export function storedEvent(
  message: CanonicalMessage,
  correlationId: string | undefined,
  // A batch passes one time for all its events: a date's toISOString cost 1.5 µs a message.
  occurredAt: string = new Date().toISOString(),
): MessageStored {
  return {
    id: storedEventId(message.conversation_id, message.seq),
    type: 'conversation.message.stored',
    occurred_at: occurredAt,
    ...(correlationId === undefined ? {} : { correlation_id: correlationId }),
    source: 'converter',
    data: message,
  };
}

export function storedEventId(conversationId: string, seq: number): string {
  const plain = `${conversationId}:${seq}`;
  if (plain.length <= EVENT_ID_MAX_CHARS) return plain;
  return `sha256:${createHash('sha256').update(conversationId).digest('base64url')}:${seq}`;
}
