/**
 * The memory-service answers only messages that contain what was searched: a hit must hold one of
 * the query's words, in any case. A message merely close in meaning is no hit; the vector side of
 * a hybrid search ranks, it does not add. Both the people's search and the admins' keep this rule.
 */
export function containsQueryWord(query: string): (text: string) => boolean {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return (text) => {
    const lower = text.toLowerCase();
    return words.some((word) => lower.includes(word));
  };
}
