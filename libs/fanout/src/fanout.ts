/**
 * Live fan-out of small notifications (a message was stored, a stream got a chunk) to every
 * process that has a listener. Best effort and not durable: readers that need completeness read
 * the store; fan-out only tells them when to look.
 */
export interface Fanout {
  /** How many subscribers heard it: Redis counts the connections subscribed, in process the listeners; 0 is nobody. */
  publish(channel: string, message: string): Promise<number>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
