import type { MemstreamClient } from '@memstream/client';

export type Receipt = Awaited<ReturnType<MemstreamClient['admin']['erasure']>>;
export type Family = keyof Receipt['counts'];
export const STORES = ['postgres', 'redis', 'kafka'] as const;

/** Whether the job has ended (the receipt will not change again). */
export const ended = (r: Pick<Receipt, 'status'>) => r.status === 'completed' || r.status === 'failed';

/** Everything the job removed or rewrote, in every family and store: one number for a list. */
export function removedIn(r: Receipt): number {
  let total = 0;
  for (const family of Object.values(r.counts))
    for (const store of STORES) for (const n of Object.values(family[store])) total += n;
  return total;
}
