/** What the retention job removes, by kind (the names of the settings, RETENTION_*). */
export const RETENTION_KINDS = ['messages', 'memories', 'summaries', 'kaosEvents', 'arkSessions', 'deleted'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** What a run removed or rebuilt, per table; numbers only. */
export interface RetentionCounts {
  messages: number;
  /** Search rows and their vectors, of messages and of memories. */
  searchRows: number;
  episodesRebuilt: number;
  episodes: number;
  episodicMemories: number;
  summaries: number;
  kaosEvents: number;
  arkSessions: number;
  conversationGroups: number;
}

export function noRetentionCounts(): RetentionCounts {
  return {
    messages: 0,
    searchRows: 0,
    episodesRebuilt: 0,
    episodes: 0,
    episodicMemories: 0,
    summaries: 0,
    kaosEvents: 0,
    arkSessions: 0,
    conversationGroups: 0,
  };
}

export function addRetentionCounts(a: RetentionCounts, b: Partial<RetentionCounts>): RetentionCounts {
  const sum = { ...a };
  for (const key of Object.keys(sum) as (keyof RetentionCounts)[]) sum[key] += b[key] ?? 0;
  return sum;
}

/**
 * Which conversations a pass covers: every one (the setting's period), or those whose metadata
 * (their own, or their group's root, so forks follow the conversation they came from) carries
 * this override under the key `retention`.
 */
export type RetentionScope = { readonly override?: string | undefined };

export interface RetentionBatch {
  readonly counts: Partial<RetentionCounts>;
  /** False while this pass may have more to do (run it again). */
  readonly finished: boolean;
  /** Conversations removed whole, whose response streams (outside the database) are to be discarded. */
  readonly conversationIds: readonly string[];
  /** Where the next batch of this pass starts (for a pass that walks conversations in order). */
  readonly after?: string | undefined;
}
