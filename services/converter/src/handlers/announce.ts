import type { Fanout } from '@memstream/fanout';
import type { Logger } from '@memstream/logging';
import { REQUEST_OUTCOME_CHANNEL, type RequestOutcome } from '@memstream/schemas';

/** Best effort: a gateway that misses this answers 202 when its wait ends, and the status is in the store. */
export async function announce(fanout: Fanout, outcomes: readonly RequestOutcome[], log: Logger): Promise<void> {
  if (outcomes.length === 0) return;
  try {
    await fanout.publish(REQUEST_OUTCOME_CHANNEL, JSON.stringify(outcomes));
  } catch (err) {
    log.warn({ err, outcomes: outcomes.length }, 'could not announce request outcomes');
  }
}
