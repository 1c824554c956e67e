import { publishEvents, type Bus, type HandlerContext } from '@memstream/bus';
import { appendMessage, type Store } from '@memstream/store';
import {
  TOPICS,
  conversationIdOf,
  parseCreateTime,
  referencedIds,
  type GroupChatMessageReceived,
  type MessageStored,
} from '@memstream/schemas';

export interface ConverterDeps {
  readonly store: Store;
  readonly bus: Bus;
}

/**
 * EverMemOS group-chat message -> canonical message, stored once. A redelivered event finds its
 * row and stores nothing, but the stored-event is published again anyway: if the first delivery
 * died between the insert and the publish, this is how downstream consumers still hear of it
 * (they are idempotent too).
 */
export function handleGroupChatMessage(deps: ConverterDeps) {
  return async (event: GroupChatMessageReceived, ctx: HandlerContext): Promise<void> => {
    const m = event.data;
    const createdAt = parseCreateTime(m.create_time)!; // the schema already refused anything else
    const result = await appendMessage(deps.store, {
      conversation_id: conversationIdOf(m),
      message_id: m.message_id,
      sender_id: m.sender,
      sender_name: m.sender_name ?? m.sender,
      role: 'user',
      content: m.content,
      created_at: createdAt,
      refer_list: referencedIds(m),
      metadata: m.group_name === undefined ? {} : { group_name: m.group_name },
      source_api: 'evermemos',
    });
    const stored: MessageStored = {
      id: `${result.message.conversation_id}:${result.message.seq}`,
      type: 'conversation.message.stored',
      occurred_at: new Date().toISOString(),
      ...(event.correlation_id === undefined ? {} : { correlation_id: event.correlation_id }),
      source: 'converter',
      data: result.message,
    };
    await publishEvents(deps.bus, TOPICS.messagesStored, [stored]);
    ctx.log.info(
      { conversationId: result.message.conversation_id, seq: result.message.seq, duplicate: result.duplicate },
      result.duplicate ? 'message already stored' : 'message stored',
    );
  };
}
