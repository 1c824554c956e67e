import { CONSUMERS, type TOPICS } from './topics.js';

type TopicKey = keyof typeof TOPICS;
/** The services that read a topic (CONSUMERS). */
export type ConsumerOf<K extends TopicKey> = (typeof CONSUMERS)[K][number];
/** Every service that consumes some topic. */
export type ConsumerService = ConsumerOf<TopicKey>;

/** The consumer group ids a deployment sets (CONVERTER_GROUP_ID and the others in @memstream/config). */
export type PipelineGroupIds = { readonly [S in ConsumerService as `${Uppercase<S>}_GROUP_ID`]: string };

/**
 * What follows a service's group id in its group on each topic it reads. A service reads its
 * main topic in its own group and any other in a group of its own named after it: kafkajs's
 * assigner hands every member of a group partitions of every topic the group reads, so the
 * members of one group must all subscribe to the same topics. Typed by CONSUMERS, so a consumer
 * added there fails the type check until it is named here.
 */
const GROUP_SUFFIX = {
  groupChatInput: { converter: '' },
  arkMessages: { converter: '.ark' },
  conversationInput: { converter: '.conversations' },
  messagesStored: { indexer: '', extractor: '', summarizer: '' },
  memoriesExtracted: { indexer: '.memories' },
  erasures: { governance: '' },
} as const satisfies { readonly [K in TopicKey]: { readonly [S in ConsumerOf<K>]: string } };

/**
 * The consumer group in which `service` reads `topic`, given the service's group id setting
 * (`CONVERTER_GROUP_ID` for the converter, ...). The one place group names are made: the services
 * subscribe with it, and the erasure job and the pipeline view find the groups through it.
 */
export function consumerGroup<K extends TopicKey>(topic: K, service: ConsumerOf<K>, groupId: string): string {
  return groupName(topic, service, groupId);
}

/**
 * The groups that read `topic`, in CONSUMERS' order, of the services whose group id `g` sets (a
 * Deployment's settings name only its own service's).
 */
export function consumerGroupsOf(topic: TopicKey, g: Partial<PipelineGroupIds>): string[] {
  const services: readonly ConsumerService[] = CONSUMERS[topic];
  return services.flatMap((service) => {
    const groupId = g[`${service.toUpperCase() as Uppercase<ConsumerService>}_GROUP_ID`];
    return groupId === undefined ? [] : [groupName(topic, service, groupId)];
  });
}

/** The consumer groups that read each topic; the erasure job and the pipeline view read it. */
export function consumerGroupsByTopic(g: PipelineGroupIds): { readonly [K in TopicKey]: readonly string[] } {
  const groups = {} as { [K in TopicKey]: readonly string[] };
  for (const topic of Object.keys(CONSUMERS) as TopicKey[]) groups[topic] = consumerGroupsOf(topic, g);
  return groups;
}

function groupName(topic: TopicKey, service: ConsumerService, groupId: string): string {
  const suffixes: Readonly<Partial<Record<ConsumerService, string>>> = GROUP_SUFFIX[topic];
  return `${groupId}${suffixes[service] ?? ''}`;
}
