import type { CanonicalMessage, EpisodicMemory } from '@memstream/schemas';

/**
 * The text a message is indexed by (keyword and vector alike): the speaker's name, then what was
 * said. Questions name people ("what did Caroline..."), and a turn rarely does, so the name must
 * be part of the turn's text for either method to connect them.
 */
export function messageText(m: CanonicalMessage): string {
  const content = m.content.trim();
  if (content === '') return '';
  return `${m.sender_name || m.sender_id}: ${content}`;
}

/** A memory is indexed by its title and its text. */
export function memoryText(m: EpisodicMemory): string {
  return m.title ? `${m.title}. ${m.content}` : m.content;
}
