import type { z } from 'zod';
import type { ConsoleConversationPage, ConsoleConversationsQuery, ConsolePipeline } from '@memstream/schemas';
import type { CallOptions, Http } from './http.js';
import { ROUTES } from './routes.js';

const R = ROUTES.console;

/** memstream's own reads made for the console; any caller, each seeing what it may read. */
export class ConsoleReads {
  constructor(private readonly http: Http) {}

  /**
   * Conversations of every family the caller may read, most recently active first, filtered by
   * family, group or session, person and last activity; page with `cursor: nextCursor`.
   */
  conversations(
    query: z.input<typeof ConsoleConversationsQuery> = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof ConsoleConversationPage>> {
    return this.http.call(R.conversations, { query }, options);
  }

  /**
   * Each consumer group's lag on each topic, from the bus's own offsets: known in the distributed
   * mode too, where the consumers' /metrics are not the API's. Any signed-in caller.
   */
  pipeline(options?: CallOptions): Promise<z.infer<typeof ConsolePipeline>> {
    return this.http.call(R.pipeline, {}, options);
  }
}
