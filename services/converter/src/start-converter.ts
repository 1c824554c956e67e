import { subscribeEvents, type Bus, type RetryPolicy, type Subscription } from '@memstream/bus';
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
