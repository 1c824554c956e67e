/**
 * Compiled by `npm run typecheck`, never run: each @ts-expect-error line must fail to compile, or
 * the type check fails on the unused directive. It proves the wiring catches a topic left without
 * its handler and a handler for a topic its consumer does not read.
 */
import type { Wiring } from '@memstream/bus';
import type { CONSUMERS, TOPICS } from '@memstream/schemas';

type Of<C extends string> = Wiring<typeof TOPICS, typeof CONSUMERS, C>;
// never: a stand-in for any binding, so only the set of topics is checked
declare const binding: never;

export const complete: Of<'indexer'> = { messagesStored: binding, memoriesExtracted: binding };

// @ts-expect-error the converter reads three input topics: leaving one out does not compile
export const missing: Of<'converter'> = { groupChatInput: binding, arkMessages: binding };

// @ts-expect-error the summarizer does not read extracted memories: a handler for them does not compile
export const extra: Of<'summarizer'> = { messagesStored: binding, memoriesExtracted: binding };
