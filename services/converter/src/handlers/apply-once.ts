import { findRequestOutcomes, recordRequestOutcomes, type Queryable, type Store } from '@memstream/store';
import type { RequestOutcome } from '@memstream/schemas';

/**
 * Applies commands (a completion, a deletion, a flush) one at a time, each deciding and recording
 * its outcome in one transaction: a command Kafka delivers again finds its outcome and is not
 * decided again, so it keeps the answer it was first given (what it deleted, which episodes it
 * closed) instead of finding nothing left to do.
 */
export async function applyOnce<E extends { readonly id: string }>(
  store: Store,
  events: readonly E[],
  decide: (tx: Queryable, event: E) => Promise<RequestOutcome>,
): Promise<RequestOutcome[]> {
  const outcomes: RequestOutcome[] = [];
  for (const event of events) {
    outcomes.push(
      await store.transaction(async (tx) => {
        const earlier = (await findRequestOutcomes(tx, [event.id])).get(event.id);
        if (earlier) return earlier;
        const decided = await decide(tx, event);
        await recordRequestOutcomes(tx, [decided]);
        return decided;
      }),
    );
  }
  return outcomes;
}
