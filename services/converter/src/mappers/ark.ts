import type { NewMessage } from '@memstream/store';
import { textOf, type ArkMessagesReceived, type Role } from '@memstream/schemas';

const ROLES: Record<string, Role> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
};

/**
 * An ARK batch -> canonical messages of the session, in order. The OpenAI message is kept whole
 * in metadata (ARK reads it back exactly); its text is the canonical content, for search and
 * summaries. ARK messages carry no ids, so each gets `<event id>:<index>`: a redelivered event
 * finds its rows, while a client that posts the same batch again posts new messages.
 */
export function fromArkMessages(event: ArkMessagesReceived): NewMessage[] {
  const createdAt = new Date(event.occurred_at);
  return event.data.messages.map((message, i) => {
    const name = typeof message['name'] === 'string' ? message['name'] : undefined;
    return {
      conversation_id: event.data.session_id,
      message_id: `${event.id}:${i}`,
      sender_id: name ?? message.role,
      sender_name: name ?? message.role,
      role: ROLES[message.role] ?? 'user',
      content: textOf(message),
      created_at: createdAt,
      refer_list: [],
      metadata: { query_id: event.data.query_id ?? null, message },
      source_api: 'ark',
    };
  });
}
