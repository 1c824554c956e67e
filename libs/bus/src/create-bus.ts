import type { Logger } from '@memstream/logging';
import type { Metrics } from '@memstream/metrics';
import type { Bus, RetryPolicy } from './bus.js';
import type { BusJournal } from './bus-journal.js';
import { KafkaBus } from './kafka-bus.js';
import { MemoryBus } from './memory-bus.js';

export interface BusSettings {
  readonly KAFKA_BROKERS: readonly string[];
  readonly KAFKA_CLIENT_ID: string;
  readonly KAFKA_TOPIC_PREFIX: string;
  readonly KAFKA_TOPIC_PARTITIONS: number;
  readonly KAFKA_REPLICATION_FACTOR?: number | undefined;
  readonly KAFKA_REQUEST_TIMEOUT_MS: number;
  readonly KAFKA_SESSION_TIMEOUT_MS: number;
}

export interface CreateBusOptions {
  /** Makes the in-process bus durable; Kafka ignores it (the brokers are its journal). */
  readonly journal?: BusJournal;
}

/** Kafka when brokers are configured, otherwise the in-process bus of the embedded mode. */
export function createBus(settings: BusSettings, log: Logger, metrics: Metrics, options: CreateBusOptions = {}): Bus {
  if (settings.KAFKA_BROKERS.length === 0) {
    return new MemoryBus(log.child({ component: 'bus' }), settings.KAFKA_TOPIC_PARTITIONS, metrics, {
      journal: options.journal,
    });
  }
  return new KafkaBus({
    brokers: settings.KAFKA_BROKERS,
    clientId: settings.KAFKA_CLIENT_ID,
    topicPrefix: settings.KAFKA_TOPIC_PREFIX,
    log: log.child({ component: 'bus' }),
    defaultPartitions: settings.KAFKA_TOPIC_PARTITIONS,
    ...(settings.KAFKA_REPLICATION_FACTOR === undefined
      ? {}
      : { replicationFactor: settings.KAFKA_REPLICATION_FACTOR }),
    requestTimeoutMs: settings.KAFKA_REQUEST_TIMEOUT_MS,
    sessionTimeoutMs: settings.KAFKA_SESSION_TIMEOUT_MS,
    metrics,
  });
}

export interface RetrySettings {
  readonly CONSUMER_MAX_ATTEMPTS: number;
  readonly CONSUMER_RETRY_INITIAL_MS: number;
  readonly CONSUMER_RETRY_MAX_MS: number;
}

export function retryPolicyOf(settings: RetrySettings): RetryPolicy {
  return {
    maxAttempts: settings.CONSUMER_MAX_ATTEMPTS,
    initialDelayMs: settings.CONSUMER_RETRY_INITIAL_MS,
    maxDelayMs: settings.CONSUMER_RETRY_MAX_MS,
  };
}
