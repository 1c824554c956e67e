/**
 * What a purge removed, per table. The keyword statistics are not counted: they are bookkeeping
 * over the search rows, deleted with their groups.
 */
export interface PurgeCounts {
  readonly groups: number;
  readonly conversations: number;
  readonly messages: number;
  readonly searchItems: number;
  readonly episodes: number;
  readonly episodicMemories: number;
  readonly summaries: number;
  readonly kaosSessions: number;
  readonly kaosEvents: number;
  readonly arkSessions: number;
  readonly streamChunks: number;
  readonly memberships: number;
  /** Removed memberships kept for the record (see removeMembership). */
  readonly membershipRemovals: number;
  readonly transfers: number;
  readonly conversationMeta: number;
  readonly requestOutcomes: number;
}

/** A count a table's rows go into; `groups` counts the groups themselves. */
export type PurgeCount = Exclude<keyof PurgeCounts, 'groups'>;

export const NO_PURGE: PurgeCounts = Object.freeze({
  groups: 0,
  conversations: 0,
  messages: 0,
  searchItems: 0,
  episodes: 0,
  episodicMemories: 0,
  summaries: 0,
  kaosSessions: 0,
  kaosEvents: 0,
  arkSessions: 0,
  streamChunks: 0,
  memberships: 0,
  membershipRemovals: 0,
  transfers: 0,
  conversationMeta: 0,
  requestOutcomes: 0,
});

/** Adds two purges' counts (a job's running total). */
export function addPurgeCounts(a: PurgeCounts, b: Partial<PurgeCounts>): PurgeCounts {
  const sum = { ...a } as Record<keyof PurgeCounts, number>;
  for (const key of Object.keys(NO_PURGE) as (keyof PurgeCounts)[]) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  return sum;
}
