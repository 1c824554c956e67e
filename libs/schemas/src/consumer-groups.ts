import type { TOPICS } from './topics.js';

/** The consumer group ids a deployment sets (CONVERTER_GROUP_ID and the others in @memstream/config). */
export interface PipelineGroupIds {
  readonly CONVERTER_GROUP_ID: string;
  readonly INDEXER_GROUP_ID: string;
  readonly EXTRACTOR_GROUP_ID: string;
  readonly SUMMARIZER_GROUP_ID: string;
  readonly GOVERNANCE_GROUP_ID: string;
}

/**
 * The consumer groups that read each topic, as each service subscribes them (start-converter.ts,
 * start-indexer.ts, start-extractor.ts, start-summarizer.ts, run-governance.ts): a service reading a second topic
 * does so in a group of its own, named after its main one. Typed by the catalogue, so a new topic
 * fails the type check until it is listed here; the erasure job and the pipeline view both read it.
 */
export function consumerGroupsByTopic(g: PipelineGroupIds): { readonly [K in keyof typeof TOPICS]: readonly string[] } {
  return {
    groupChatInput: [g.CONVERTER_GROUP_ID],
    arkMessages: [`${g.CONVERTER_GROUP_ID}.ark`],
    conversationInput: [`${g.CONVERTER_GROUP_ID}.conversations`],
    messagesStored: [g.INDEXER_GROUP_ID, g.EXTRACTOR_GROUP_ID, g.SUMMARIZER_GROUP_ID],
    memoriesExtracted: [`${g.INDEXER_GROUP_ID}.memories`],
    erasures: [g.GOVERNANCE_GROUP_ID],
  };
}
