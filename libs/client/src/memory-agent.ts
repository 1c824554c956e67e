import type { CallOptions, Http } from './http.js';
import type { AgentContext, SummaryRow } from './responses.js';
import { ROUTES } from './routes.js';

const R = ROUTES.memoryAgent;

/** The Memory Agent: rolling summaries of a conversation, and the context an agent starts a round with. */
export class MemoryAgent {
  constructor(private readonly http: Http) {}

  /** Every summary row of the conversation, oldest first: the version chain with its statuses. */
  summaries(
    conversationId: string,
    options?: CallOptions,
  ): Promise<{ conversation_id: string; summaries: SummaryRow[] }> {
    return this.http.call(R.summaries, { query: { conversation_id: conversationId } }, options);
  }

  /** The latest completed summary and every message after it. */
  context(conversationId: string, options?: CallOptions): Promise<AgentContext> {
    return this.http.call(R.context, { query: { conversation_id: conversationId } }, options);
  }

  /** The same, rendered as one prompt-ready string. */
  contextText(conversationId: string, options?: CallOptions): Promise<string> {
    return this.http.call(R.context, { query: { conversation_id: conversationId, format: 'text' } }, options);
  }
}
