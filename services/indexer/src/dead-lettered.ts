import { decodeRecord, type BusRecord, type DeadLetterListener } from '@memstream/bus';
import type { Logger } from '@memstream/logging';
import { TOPICS, type MessageStored } from '@memstream/schemas';
import { queueMessagesToEmbed, type Store } from '@memstream/store';

/**
 * The stored-message subscription's dead-letter listener: a message whose vector could not be
 * written (the embedding server refusing for longer than the retries, a bug since fixed) is queued
 * for the sweep, which tries it again with backoff. Without it such a message kept its keyword
 * row and never got a vector, and vector search never found it. The bus calls this before it
 * commits past the record, so a crash in between redelivers the record instead of losing it; a
 * failure here is logged by the bus, and the sweep's walk for missing vectors finds the message.
 */
export function queueDeadLettered(store: Store, log: Logger): DeadLetterListener {
  return async (record) => {
    const key = storedMessageKey(record);
    // a record that is no stored-message event (dead-lettered as invalid) names nothing to embed
    if (!key) return;
    const queued = await queueMessagesToEmbed(store, [key]);
    if (queued > 0)
      log.info(
        { conversationId: key.conversationId, messageId: key.messageId },
        'dead-lettered message queued for the sweep',
      );
  };
}

function storedMessageKey(record: BusRecord): { conversationId: string; messageId: string } | undefined {
  let event: MessageStored;
  try {
    event = decodeRecord(TOPICS.messagesStored, record);
  } catch {
    return undefined; // not JSON, or not the topic's schema: the reason it was dead-lettered
  }
  return { conversationId: event.data.conversation_id, messageId: event.data.message_id };
}
