/**
 * The text a message is searched by, keyword and vector alike: the speaker's name, then what was
 * said ('' for a message with nothing to search, which gets no search row). Questions name people
 * ("what did Caroline..."), and a turn rarely does, so the name must be part of the turn's text for
 * either method to connect them. One rule in the store because two writers use it: the converter
 * writes the keyword row with the message, and the indexer embeds the same text later.
 */
export function messageSearchText(m: {
  readonly sender_name: string;
  readonly sender_id: string;
  readonly content: string;
}): string {
  const content = m.content.trim();
  if (content === '') return '';
  return `${m.sender_name || m.sender_id}: ${content}`;
}

/** The text a memory is searched by: its title and its text (the indexer's rule, and the import's). */
export function memorySearchText(m: { readonly title: string; readonly content: string }): string {
  return m.title ? `${m.title}. ${m.content}` : m.content;
}
