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
