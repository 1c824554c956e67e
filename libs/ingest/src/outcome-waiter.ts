import type { Fanout } from '@memstream/fanout';
import { REQUEST_OUTCOME_CHANNEL, RequestOutcome } from '@memstream/schemas';

/** All the waiter logs: one warning for a malformed notification. */
type WarnLog = { warn(msg: string): void };

export interface PendingOutcome {
  /** The outcome, or undefined when the wait ended first. */
  readonly result: Promise<RequestOutcome | undefined>;
  cancel(): void;
}

/**
 * Listens on the outcome channel and hands each outcome to the request waiting for it. Every
 * gateway replica hears every outcome and keeps the ones it waits for; the cost is one small
 * notification per converter batch, not per message.
 */
export class OutcomeWaiter {
  private readonly waiting = new Map<string, (outcome: RequestOutcome | undefined) => void>();

  private constructor(private readonly log: WarnLog) {}

  static async listen(fanout: Fanout, log: WarnLog): Promise<{ waiter: OutcomeWaiter; stop: () => Promise<void> }> {
    const waiter = new OutcomeWaiter(log);
    const stop = await fanout.subscribe(REQUEST_OUTCOME_CHANNEL, (message) => waiter.receive(message));
    return {
      waiter,
      stop: async () => {
        await stop();
        for (const settle of waiter.waiting.values()) settle(undefined);
        waiter.waiting.clear();
      },
    };
  }

  /** Register before publishing: in one process the outcome can arrive before the publish returns. */
  expect(requestId: string, timeoutMs: number): PendingOutcome {
    let timer: NodeJS.Timeout | undefined;
    const result = new Promise<RequestOutcome | undefined>((resolve) => {
      const settle = (outcome: RequestOutcome | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        resolve(outcome);
      };
      this.waiting.set(requestId, settle);
      timer = setTimeout(() => settle(undefined), timeoutMs);
    });
    return { result, cancel: () => this.waiting.get(requestId)?.(undefined) };
  }

  get pending(): number {
    return this.waiting.size;
  }

  private receive(message: string): void {
    if (this.waiting.size === 0) return;
    let outcomes: unknown;
    try {
      outcomes = JSON.parse(message);
    } catch {
      this.log.warn('outcome notification is not JSON; ignored');
      return;
    }
    if (!Array.isArray(outcomes)) return;
    for (const raw of outcomes) {
      const id = (raw as { request_id?: unknown } | null)?.request_id;
      if (typeof id !== 'string') continue;
      const settle = this.waiting.get(id);
      if (!settle) continue;
      const parsed = RequestOutcome.safeParse(raw);
      if (parsed.success) settle(parsed.data);
    }
  }
}
