import { SourceApi } from '@memstream/schemas';

/**
 * What an erasure removed or rewrote, per API family and per store: `counts[family][store][kind]`.
 * A conversation belongs to the family that wrote it (its source_api); the rolling summaries
 * (the `memory` table) are the Memory Agent's, whichever family's conversation they summarized.
 */
export const ERASURE_FAMILIES: readonly SourceApi[] = SourceApi.options;
export type ErasureFamily = SourceApi;
/**
 * `kafka` is the transport (Kafka's log, or the embedded bus and its journal): records removed per
 * topic, the kind being the topic's name.
 */
export const ERASURE_STORES = ['postgres', 'redis', 'kafka'] as const;
export type ErasureStore = (typeof ERASURE_STORES)[number];

export type ErasureCounts = Record<ErasureFamily, Record<ErasureStore, Record<string, number>>>;

export function noErasureCounts(): ErasureCounts {
  const counts = {} as ErasureCounts;
  for (const family of ERASURE_FAMILIES) counts[family] = { postgres: {}, redis: {}, kafka: {} };
  return counts;
}

/** The family of a conversation written through `sourceApi` (a group of memberships only is memory-service's). */
export function familyOf(sourceApi: string | null | undefined): ErasureFamily {
  return (ERASURE_FAMILIES as readonly string[]).includes(sourceApi ?? '')
    ? (sourceApi as ErasureFamily)
    : 'memory-service';
}

/** Adds `n` (when not 0) to one count. */
export function addCount(
  counts: ErasureCounts,
  family: ErasureFamily,
  store: ErasureStore,
  kind: string,
  n: number,
): void {
  if (n === 0) return;
  const bucket = counts[family][store];
  bucket[kind] = (bucket[kind] ?? 0) + n;
}

/** The sum of two (a job's running total and a batch's), as a new object; tolerant of a stored partial one. */
export function addErasureCounts(a: Partial<ErasureCounts>, b: Partial<ErasureCounts>): ErasureCounts {
  const sum = noErasureCounts();
  for (const side of [a, b])
    for (const family of ERASURE_FAMILIES)
      for (const store of ERASURE_STORES)
        for (const [kind, n] of Object.entries(side[family]?.[store] ?? {})) addCount(sum, family, store, kind, n);
  return sum;
}

/**
 * The database side of erasing a person, as batches the erasure job runs one transaction at a
 * time (lifecycle/erase-person.ts makes them; the governance worker's erasure-runner.ts runs them in order). Each batch finds what is still there, so a batch
 * redone after a crash finds nothing twice. What a person's data is: docs/your-users-data.md.
 */
export interface ErasureBatch {
  readonly counts: ErasureCounts;
  /** False while this step may have more to do (run it again). */
  readonly finished: boolean;
  /** Conversations removed whole, whose response streams (outside the database) are to be discarded. */
  readonly conversationIds: readonly string[];
}
