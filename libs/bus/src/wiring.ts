import type { Subscription } from './bus.js';
import { subscribeEvents, type TypedTopic } from './typed.js';

/** A catalogue of topics by key (@memstream/schemas's TOPICS); each topic has an event type of its own. */
type Catalogue = Record<string, TypedTopic<any>>;

/** For each topic of the catalogue, the consumers that read it (@memstream/schemas's CONSUMERS). */
type ConsumerMap<T> = { readonly [K in keyof T]: readonly string[] };

type EventOf<T> = T extends TypedTopic<infer E> ? E : never;

/** The keys of the topics consumer C reads. */
export type TopicsOf<T, M extends ConsumerMap<T>, C extends string> = {
  [K in keyof T]: C extends M[K][number] ? K : never;
}[keyof T];

/** How one topic is consumed: subscribeEvents's options for its event type. */
export type Binding<E> = Parameters<typeof subscribeEvents<E>>[2];

/**
 * A consumer's wiring: one binding (group, retry policy, handler) for every topic the consumer
 * map says it reads, and for no other. A topic added to the map without its handler, or a
 * handler of a topic the consumer does not read, fails the type check.
 */
export type Wiring<T, M extends ConsumerMap<T>, C extends string> = {
  readonly [K in TopicsOf<T, M, C>]: Binding<EventOf<T[K]>>;
};

/** Subscribes every binding of a wiring to its topic of the catalogue; the caller stops the subscriptions. */
export async function subscribeWiring<T extends Catalogue, M extends ConsumerMap<T>, C extends string>(
  bus: Parameters<typeof subscribeEvents>[0],
  catalogue: T,
  wiring: Wiring<T, M, C>,
): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  for (const [key, binding] of Object.entries(wiring) as Array<[keyof T & string, Binding<unknown>]>) {
    subscriptions.push(await subscribeEvents(bus, catalogue[key] as TypedTopic<unknown>, binding));
  }
  return subscriptions;
}
