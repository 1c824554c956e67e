import type { KaosSessionRow, NewMessage } from '@memstream/store';
import { speakingPerson, type Actor, type KaosEvent } from '@memstream/schemas';

/**
 * A KAOS user or agent message as a canonical one, so search, episodes and summaries see KAOS
 * sessions like any conversation. The event's id is the message's id, which makes a resent event
 * the same message. Content that is not a string is kept as its JSON text.
 *
 * Who speaks: a person who appends is the sender of what they append (the sender rule, see
 * senderRefusal), so a member's turn in a shared session is theirs, not the session user's. A
 * KAOS pod (an agent) writes its session's turns: the user's are the session user's, its own the
 * agent's.
 */
export function fromKaosEvent(
  session: Pick<KaosSessionRow, 'conversation_id' | 'user_id' | 'agent'>,
  e: KaosEvent,
  actor: Actor | undefined,
): NewMessage {
  const fromUser = e.event_type === 'user_message';
  // The route sends content as the client's JSON text (content_json); a direct producer as a value.
  const content = e.content_json !== undefined ? (JSON.parse(e.content_json) as unknown) : e.content;
  const sender = speakingPerson(actor) ?? (fromUser ? session.user_id || 'user' : session.agent);
  return {
    conversation_id: session.conversation_id,
    message_id: e.event_id,
    sender_id: sender,
    sender_name: sender,
    role: fromUser ? 'user' : 'assistant',
    content: typeof content === 'string' ? content : (e.content_json ?? JSON.stringify(content ?? null)),
    created_at: new Date(e.timestamp),
    refer_list: [],
    metadata: { kaos: { event_type: e.event_type, metadata: e.metadata } },
    source_api: 'kaos',
  };
}
