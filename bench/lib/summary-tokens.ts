import type { ChatMessage, ChatModel } from '@memstream/llm';
import type { CanonicalMessage } from '@memstream/schemas';
import { modelSummarizer, type SummaryInput } from '@memstream/summarizer';
import { countTokens } from '../../harness/model-server.js';

/**
 * What a prompt of the model summarizer costs, counted without a server: the real
 * `modelSummarizer` builds the prompt and hands it to this stand-in model, which counts it the
 * way the test model server does (every message's content joined by newlines, `countTokens`).
 * So the full-history figure is the prompt the service would really send, not a re-typed copy
 * of its wording that could drift from it.
 */
export class PromptCounter {
  private last = 0;
  private readonly summarizer = modelSummarizer(this.countingModel());

  async tokens(input: Omit<SummaryInput, 'signal'>): Promise<number> {
    await this.summarizer.summarize({ ...input, signal: new AbortController().signal });
    return this.last;
  }

  private countingModel(): ChatModel {
    return {
      model: 'token-counter',
      complete: async (messages: readonly ChatMessage[]) => {
        this.last = countTokens(messages.map((m) => m.content).join('\n'));
        return { text: '-', inputTokens: this.last, outputTokens: 0 };
      },
    };
  }
}

/**
 * The cost of summarizing the whole history 0..end from scratch (no previous memory, every
 * message in the prompt), for many `end`s at once. Tokens never span whitespace, so the count of
 * a newline-joined prompt is the sum of its parts': the prompt without messages plus a prefix sum
 * of the messages' counts, each message counted as the summarizer renders it (its prompt with that
 * one message, less its prompt with none). `exact` builds the whole prompt to check that identity.
 */
export class FullHistoryCost {
  private readonly messages: CanonicalMessage[] = [];
  private readonly prefix: number[] = [0];

  constructor(private readonly counter: PromptCounter) {}

  /** Messages must be added in sequence order, starting at 0. */
  async add(message: CanonicalMessage): Promise<void> {
    if (message.seq !== this.messages.length) throw new Error(`message ${message.seq} added out of order`);
    const at = { start: 0, end: message.seq, previous: null };
    const own =
      (await this.counter.tokens({ ...at, messages: [message] })) -
      (await this.counter.tokens({ ...at, messages: [] }));
    this.messages.push(message);
    this.prefix.push(this.prefix.at(-1)! + own);
  }

  async tokens(end: number): Promise<number> {
    const frame = await this.counter.tokens({ start: 0, end, previous: null, messages: [] });
    return frame + this.prefix[end + 1]!;
  }

  async exact(end: number): Promise<number> {
    return this.counter.tokens({ start: 0, end, previous: null, messages: this.messages.slice(0, end + 1) });
  }

  /** The most tokens any `size` consecutive messages take, as rendered in a prompt. */
  maxWindowTokens(size: number): number {
    let max = 0;
    for (let end = 1; end < this.prefix.length; end++) {
      max = Math.max(max, this.prefix[end]! - this.prefix[Math.max(0, end - size)]!);
    }
    return max;
  }
}
