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

/**
 * How much of a search row's text its keyword side is made from. PostgreSQL refuses a tsvector over
 * 1 MiB, and a message within the broker's 1 MB limit can make one: unique short words cost ten
 * bytes of tsvector or more per character (hyphenated astral characters measured 10.5), so a long
 * message failed the statement that stores it, and its batch, every time it was tried. Words past
 * this many characters are not found by keyword search; the message and its row's text are whole.
 */
export const KEYWORD_TEXT_MAX_CHARS = 50_000;

/** The keyword side of a search row made from the SQL expression `text` (see KEYWORD_TEXT_MAX_CHARS). */
export function keywordVectorSql(text: string): string {
  return `to_tsvector('english', left(${text}, ${KEYWORD_TEXT_MAX_CHARS}))`;
}
