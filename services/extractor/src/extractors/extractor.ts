import type { CanonicalMessage } from '@memstream/schemas';
import type { Episode, ExtractedMemory, StoredConversationMeta } from '@memstream/store';

export interface ExtractionInput {
  readonly episode: Episode;
  /** The episode's messages, in order. */
  readonly messages: readonly CanonicalMessage[];
  /** The group's metadata, when it has any: its name, scene and time zone shape the memories. */
  readonly meta: StoredConversationMeta | undefined;
  readonly signal: AbortSignal;
}

/**
 * Turns an episode into memories: always the group's narrative (`userId` null), and in the
 * `group_chat` scene one memory per participant. Throws when it cannot (the episode is retried
 * later); the retry policy is the worker's, not the extractor's.
 */
export interface Extractor {
  readonly name: string;
  extract(input: ExtractionInput): Promise<ExtractedMemory[]>;
}

/** EverMemOS scenes: `group_chat` (people talking) and `assistant` (one user and an AI). */
export function sceneOf(meta: StoredConversationMeta | undefined): string {
  return meta?.scene ?? 'group_chat';
}

/** Distinct senders in order of first appearance, with the name each last used. */
export function participantsOf(messages: readonly CanonicalMessage[]): Array<{ id: string; name: string }> {
  const names = new Map<string, string>();
  for (const m of messages) names.set(m.sender_id, m.sender_name || m.sender_id);
  return [...names].map(([id, name]) => ({ id, name }));
}
