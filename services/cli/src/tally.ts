import type { Conversation } from './group-chat-file.js';
import type { Progress } from './progress.js';

/** How the messages of an import ended; `sent` is every message the server or broker took. */
export interface Counts {
  sent: number;
  stored: number;
  duplicate: number;
  accepted: number;
  failed: number;
}

export type MessageOutcome = 'stored' | 'duplicate' | 'accepted';

/** Counts outcomes and keeps one line per failure, with its location, for the report at the end. */
export class Tally {
  readonly counts: Counts = { sent: 0, stored: 0, duplicate: 0, accepted: 0, failed: 0 };
  readonly failures: string[] = [];

  constructor(private readonly progress: Progress) {}

  succeeded(outcome: MessageOutcome, count = 1): void {
    this.counts[outcome] += count;
    this.counts.sent += count;
    this.progress.advance(count);
  }

  failed(where: string, reason: string, count = 1): void {
    this.counts.failed += count;
    this.failures.push(`${where}: ${reason}`);
    this.progress.advance(count);
  }
}

export function messageLocation(conversation: Conversation, index: number): string {
  const id = conversation.messages[index]?.message_id;
  return `conversation ${conversation.index}, message ${index}${id === undefined ? '' : ` (${id})`}`;
}
