import { retryPolicyOf, subscribeEvents, type Bus, type RetryPolicy, type Subscription } from '@memstream/bus';
import type { ConverterConfig } from '@memstream/config';
import type { Lifecycle } from '@memstream/runtime';
import type { Store } from '@memstream/store';
import { TOPICS } from '@memstream/schemas';
import { handleGroupChatMessage } from './handlers/group-chat-message.js';

export interface ConverterOptions {
  readonly bus: Bus;
  readonly store: Store;
  readonly groupId: string;
  readonly retry: RetryPolicy;
  readonly partitionsConcurrently: number;
}

/** Subscribes the converter's handlers; the caller stops the returned subscriptions on shutdown. */
export async function startConverter(options: ConverterOptions): Promise<Subscription[]> {
  const deps = { bus: options.bus, store: options.store };
  return [
    await subscribeEvents(options.bus, TOPICS.groupChatMessages, {
      groupId: options.groupId,
      retry: options.retry,
      partitionsConcurrently: options.partitionsConcurrently,
      handler: handleGroupChatMessage(deps),
    }),
  ];
}

/**
 * The converter as a process runs it (alone, or inside the all-in-one): settings from config,
 * and its subscriptions stopped (drained and committed) when the lifecycle shuts down.
 */
export async function runConverter(config: ConverterConfig, deps: { bus: Bus; store: Store; lifecycle: Lifecycle }): Promise<void> {
  const subscriptions = await startConverter({
    bus: deps.bus,
    store: deps.store,
    groupId: config.CONVERTER_GROUP_ID,
    retry: retryPolicyOf(config),
    partitionsConcurrently: config.CONVERTER_PARTITIONS_CONCURRENTLY,
  });
  deps.lifecycle.defer('converter consumers', async () => void (await Promise.all(subscriptions.map((s) => s.stop()))));
}
