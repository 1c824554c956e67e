import type { EpisodicMemoryView } from '@memstream/client';

export interface Episode {
  /** The messages the episode held (its memories' common sources). */
  readonly messageIds: readonly string[];
  readonly start: string;
  readonly end: string;
  /** The group's narrative first, then one memory per participant. */
  readonly memories: readonly EpisodicMemoryView[];
}

/**
 * Episodic memories grouped into the episodes they came from. The API lists memories, not
 * episodes: the memories of one episode share its source messages, so those are the key.
 */
export function episodesOf(memories: readonly EpisodicMemoryView[]): Episode[] {
  const byKey = new Map<string, EpisodicMemoryView[]>();
  for (const m of memories) {
    const key = JSON.stringify(m.message_ids);
    byKey.set(key, [...(byKey.get(key) ?? []), m]);
  }
  return [...byKey.values()]
    .map((group) => {
      const sorted = [...group].sort((a, b) => (a.user_id === null ? -1 : b.user_id === null ? 1 : 0));
      const first = sorted[0]!;
      return { messageIds: first.message_ids, start: first.timestamp, end: first.end_time, memories: sorted };
    })
    .sort((a, b) => b.start.localeCompare(a.start));
}

/** A link's query naming messages to show marked in the conversation. */
export function focusQuery(ids: readonly string[]): string {
  const q = new URLSearchParams();
  for (const id of ids) q.append('focus', id);
  return `?${q.toString()}`;
}
