import { eraseTransportCopies, type Bus, type ConsumedTopic } from '@memstream/bus';
import { noErasureCounts, type ErasureCounts, type ErasureFamily } from '@memstream/store';
import { CONSUMERS, TOPICS, consumerGroupsByTopic } from '@memstream/schemas';
import type { consumerGroupSettings } from '@memstream/config';

type GroupIds = { readonly [K in keyof typeof consumerGroupSettings]: string };

/** The topics that can hold content: the erasure topic holds ids only, and an erasure must not cut the one it runs from. */
type ContentTopic = Exclude<keyof typeof TOPICS, 'erasures'>;

/**
 * The groups that read each content topic (consumerGroupsByTopic). The governance worker's erasure
 * group is none of them: the job runs in it, and waiting for it would wait for itself.
 */
export function consumedTopics(groups: GroupIds): ConsumedTopic[] {
  const byTopic = consumerGroupsByTopic(groups);
  // in the catalogue's order, which is the pipeline's: a stage's input before what it publishes
  return (Object.keys(TOPICS) as (keyof typeof TOPICS)[])
    .filter((k): k is ContentTopic => k !== 'erasures')
    .map((k) => {
      if (byTopic[k].length !== CONSUMERS[k].length) throw new Error(`every consumer of ${TOPICS[k].name} is listed`);
      return { topic: TOPICS[k].name, groupIds: byTopic[k] };
    });
}

/**
 * Whose API writes a topic, to fold its counts into the receipt: the internal topics carry every
 * family's records, and are counted under the Memory Agent, as the summaries made of any family are.
 * KAOS shares the memory-service input topic.
 */
const FAMILY_OF_TOPIC: { readonly [K in keyof typeof TOPICS]: ErasureFamily } = {
  groupChatInput: 'evermemos',
  arkMessages: 'ark',
  conversationInput: 'memory-service',
  messagesStored: 'memory-agent',
  memoriesExtracted: 'memory-agent',
  erasures: 'memory-agent',
};

/**
 * The erasure job's transport step: with the process's own bus (the all-in-one's in-memory one in
 * the embedded mode), every content topic's consumed prefix and the person's dead letters of every
 * topic go. A listed group with no commit on a topic is passed over (a service not deployed), so
 * a partial deployment does not hold every erasure back; see docs/your-users-data.md.
 */
export function transportEraser(
  bus: Bus,
  groups: GroupIds,
  options: { readonly signal?: AbortSignal; readonly drainTimeoutMs?: number } = {},
): (userId: string) => Promise<ErasureCounts> {
  const consumed = consumedTopics(groups);
  const deadLetters = Object.values(TOPICS).map((t) => t.dlq);
  const familyOf = new Map<string, ErasureFamily>();
  for (const [k, t] of Object.entries(TOPICS)) {
    const family = FAMILY_OF_TOPIC[k as keyof typeof TOPICS];
    familyOf.set(t.name, family);
    familyOf.set(t.dlq, family);
  }
  return async (userId) => {
    const removed = await eraseTransportCopies({
      bus,
      userId,
      consumed,
      deadLetters,
      skipGroupsWithoutCommits: true,
      ...options,
    });
    const counts = noErasureCounts();
    for (const perTopic of [removed.consumedRemoved, removed.deadLettersRemoved])
      for (const [topic, n] of Object.entries(perTopic)) {
        if (n === 0) continue;
        const bucket = counts[familyOf.get(topic) ?? 'memory-agent'].kafka;
        bucket[topic] = (bucket[topic] ?? 0) + n;
      }
    return counts;
  };
}
