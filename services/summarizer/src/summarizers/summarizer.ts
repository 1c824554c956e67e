import type { CanonicalMessage } from '@memstream/schemas';

export interface SummaryInput {
  /** The window to summarize; content before `start` must not survive into the summary. */
  readonly start: number;
  readonly end: number;
  /** The base memory's text and range, when the summarizer works incrementally and one applies. */
  readonly previous: { readonly text: string; readonly start: number; readonly end: number } | null;
  /** Incremental: only the messages after the base; otherwise the whole window. */
  readonly messages: readonly CanonicalMessage[];
  readonly signal: AbortSignal;
}

export interface Summarizer {
  /** Whether it builds on the previous summary (a model) or rebuilds from the window (offline). */
  readonly incremental: boolean;
  readonly name: string;
  summarize(input: SummaryInput): Promise<{ text: string; inputTokens: number | null }>;
}

/** How a message reads in a summary prompt or an extract: `#seq [time] Name: text`. */
export function renderMessage(m: CanonicalMessage): string {
  return `#${m.seq} [${m.created_at}] ${m.sender_name}: ${m.content}`;
}
