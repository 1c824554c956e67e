import type { MemoryServiceMessage } from './conversation-events.js';

/** The text of the first content block that has some, as the memory-service reads a message's content. */
export function firstText(content: readonly unknown[]): string | undefined {
  for (const block of content) {
    const text = typeof block === 'string' ? block : (block as { text?: unknown } | null)?.text;
    if (typeof text === 'string' && text.trim() !== '') return text;
  }
  return undefined;
}

/** A conversation's title from its first message: the text with its spaces collapsed, cut at 40 characters. */
export function titleOf(text: string): string {
  return [...text.trim().replace(/\s+/g, ' ')].slice(0, 40).join('');
}

/**
 * The title an untitled conversation takes from messages appended to it: that of the first
 * history message people see that has some text and that erasing a person would take with the
 * title, or undefined. A title is shown to the owner, the members and every agent, so a
 * memory-channel message (its agent's alone), a summary (which names the conversation itself) and
 * an agent-only history message never give one. Erasing a person takes the conversations they
 * own whole, title included, but from others' conversations only their messages: so a message
 * titles a conversation when it is its owner's (from them, or an answer to them) or nobody's (an
 * agent's, naming no person), never when it is another person's, whose words would outlive their
 * erasure in the title.
 */
export function historyTitle(
  messages: ReadonlyArray<Pick<MemoryServiceMessage, 'channel' | 'visibility' | 'content' | 'user_id'>>,
  ownerUserId: string | null,
) {
  for (const m of messages) {
    if (m.channel !== 'history' || m.visibility === 'agent') continue;
    if (m.user_id !== null && m.user_id !== ownerUserId) continue;
    const text = firstText(m.content);
    if (text !== undefined) return titleOf(text);
  }
  return undefined;
}
