import type { EpisodicMemoryView } from '@memstream/client';

export interface Episode {
  /** Its first message's id: no two episodes of a conversation start at one message. */
  readonly key: string;
  /** Its place among the conversation's episodes, oldest first, from 1. */
  readonly number: number;
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
    .sort((a, b) => a.start.localeCompare(b.start) || (a.messageIds[0] ?? '').localeCompare(b.messageIds[0] ?? ''))
    .map((e, i) => ({ ...e, key: e.messageIds[0] ?? '', number: i + 1 }))
    .reverse();
}

/** The episode each message belongs to, by message id (a message is in at most one). */
export function episodeOfMessage(episodes: readonly Episode[]): Map<string, Episode> {
  const byMessage = new Map<string, Episode>();
  for (const e of episodes) for (const id of e.messageIds) byMessage.set(id, e);
  return byMessage;
}

/** A link's query naming messages to show marked in the conversation. */
export function focusQuery(ids: readonly string[]): string {
  const q = new URLSearchParams();
  for (const id of ids) q.append('focus', id);
  return `?${q.toString()}`;
}
