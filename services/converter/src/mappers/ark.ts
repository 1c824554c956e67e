import type { NewMessage } from '@memstream/store';
import { SAFE_ID_MAX_CHARS, speakingPerson, textOf, type ArkMessagesReceived, type Role } from '@memstream/schemas';

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
 * finds its rows, while a client that posts the same batch again posts new messages. A person's
 * turns are theirs (senderRefusal refused any other name), role-only ones too, so their export and
 * erasure reach them; an agent's are stored under the name it relays, else the role.
 */
export function fromArkMessages(event: ArkMessagesReceived): NewMessage[] {
  const createdAt = new Date(event.occurred_at);
  const person = speakingPerson(event.actor);
  return event.data.messages.map((message, i) => {
    const name = person ?? senderNameOf(message['name']);
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

/**
 * An OpenAI message's `name` as the sender, when it can be one. ARK takes any string there, and the
 * sender is a key of the store's indexes, where PostgreSQL refuses an entry over about 2.7 KB: a
 * longer name failed the batch's statement on every try (a 500, and the batch dead-lettered). So a
 * name longer than an id is kept only in the message itself, and the role speaks for it.
 */
function senderNameOf(name: unknown): string | undefined {
  return typeof name === 'string' && name.length <= SAFE_ID_MAX_CHARS ? name : undefined;
}
