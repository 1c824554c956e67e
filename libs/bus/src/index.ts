export type {
  Bus,
  BusRecord,
  OutgoingRecord,
  RetryPolicy,
  HandlerContext,
  RecordHandler,
  BatchHandler,
  DeadLetterListener,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './bus.js';
export { DLQ_HEADERS, CORRELATION_HEADER } from './bus.js';
export { busMetricsOf, type BusMetrics } from './bus-metrics.js';
export { MemoryBus, type MemoryBusOptions } from './memory-bus.js';
export type { BusJournal, GroupPosition, TrimPoint, JournalContents } from './bus-journal.js';
export { KafkaBus, type KafkaBusOptions } from './kafka-bus.js';
export { createBus, retryPolicyOf, type BusSettings, type CreateBusOptions, type RetrySettings } from './create-bus.js';
export { decodeRecord, publishEvents, serializeEvent, subscribeEvents, type TypedTopic } from './typed.js';
export { subscribeWiring, type Binding, type TopicsOf, type Wiring } from './wiring.js';
export type { PartitionCut, PartitionRange, RetainedRecords } from './retained-records.js';
export { latestRecords, type LatestRecords } from './latest-records.js';
export { consumerLag, type GroupLag, type PartitionLag } from './consumer-lag.js';
export { BacklogYield, type BacklogYieldOptions } from './backlog-yield.js';
export {
  eraseTransportCopies,
  COPIED_FROM_HEADER,
  type ConsumedTopic,
  type TransportErasure,
  type TransportErasureCounts,
} from './erase-transport-copies.js';
export { mentionsPerson } from './mentions-person.js';
export type { TopicFinding } from './topic-spec.js';
