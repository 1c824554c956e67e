import type { EpisodicMemoryView, MemstreamClient, MessageMemory, MemoryServiceMessage } from '@memstream/client';
import { MemstreamError } from '@memstream/client';
import { episodeOfMessage, episodesOf } from '../memories/episodes.js';

export interface MessageRow {
  readonly id: string;
  readonly sequence: number;
  readonly sender: string;
  readonly senderName: string | null;
  /** From the memory-service view of the conversation, where it has one; null otherwise. */
  readonly role: string | null;
  readonly channel: string | null;
  readonly time: string;
  readonly content: string;
  /** Ids of the episodic memories made from this message. */
  readonly memories: readonly string[];
  /** The episode that holds it (once its memories are extracted): its key and number. */
  readonly episode: { readonly key: string; readonly number: number } | null;
}

export interface Messages {
  readonly rows: readonly MessageRow[];
  readonly total: number;
  readonly memories: readonly EpisodicMemoryView[];
}

/** The latest messages shown, at most the EverMemOS list's page. */
export const MESSAGE_WINDOW = 500;
/** memory-service pages read for roles and channels (200 messages each). */
const MEMORY_SERVICE_PAGES = 5;

/**
 * A conversation's latest messages, oldest first, from two views of the same rows: the
 * EverMemOS list (sender, sequence, time, in every family) and memory-service's messages of the
 * conversation (role and channel), joined by message id. Both answer only what the caller may
 * see. The episodic memories made from them come too, for the links from a message to them.
 */
export async function loadMessages(client: MemstreamClient, id: string, signal: AbortSignal): Promise<Messages> {
  const [page, roles, memories] = await Promise.all([
    client.evermemos.list({ group_id: id, limit: MESSAGE_WINDOW }, { signal }),
    rolesOf(client, id, signal),
    client.evermemos.list({ group_id: id, memory_type: 'episodic_memory', limit: 500 }, { signal }),
  ]);
  const episodic = memories.result.memories as EpisodicMemoryView[];
  const madeFrom = new Map<string, string[]>();
  for (const m of episodic)
    for (const source of m.message_ids) madeFrom.set(source, [...(madeFrom.get(source) ?? []), m.id]);
  const episodes = episodeOfMessage(episodesOf(episodic));
  const rows = (page.result.memories as MessageMemory[])
    .map((m) => {
      const ms = roles.get(m.message_id);
      const episode = episodes.get(m.message_id);
      return {
        id: m.message_id,
        sequence: m.sequence,
        sender: m.user_id,
        senderName: m.sender_name,
        role: ms?.role ?? null,
        channel: ms?.channel ?? null,
        time: m.timestamp,
        content: m.content,
        memories: madeFrom.get(m.message_id) ?? [],
        episode: episode ? { key: episode.key, number: episode.number } : null,
      };
    })
    .sort((a, b) => a.sequence - b.sequence);
  return { rows, total: page.result.total_count, memories: episodic };
}

async function rolesOf(
  client: MemstreamClient,
  id: string,
  signal: AbortSignal,
): Promise<Map<string, MemoryServiceMessage>> {
  const byId = new Map<string, MemoryServiceMessage>();
  let after: string | undefined;
  try {
    for (let i = 0; i < MEMORY_SERVICE_PAGES; i++) {
      const page = await client.memoryService.user.listMessages(
        id,
        { limit: 200, ...(after ? { after } : {}) },
        { signal },
      );
      for (const m of page.data) byId.set(m.id, m);
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
  } catch (err) {
    // A conversation memory-service does not know shows without roles, not as an error.
    if (!(err instanceof MemstreamError && err.status === 404)) throw err;
  }
  return byId;
}
