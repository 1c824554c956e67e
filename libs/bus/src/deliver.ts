import { isAppError, isRetriable, isUnavailable, type ErrorCode } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import {
  CORRELATION_HEADER,
  DLQ_HEADERS,
  type BusRecord,
  type OutgoingRecord,
  type RetryPolicy,
  type SubscribeOptions,
} from './bus.js';
import { retryOnError, type RetryOnErrorOptions } from '@memstream/retry';
import { StopRequested } from './wait-or-stop.js';
import type { BusMetrics } from './bus-metrics.js';

export type DeliveryOutcome = 'handled' | 'dead-lettered';

export interface DeliveryDeps {
  readonly log: Logger;
  readonly publish: (topic: string, records: readonly OutgoingRecord[]) => Promise<void>;
  readonly signal: AbortSignal;
  readonly metrics: BusMetrics;
  /**
   * Names as the broker knows them (the bus's prefix prepended), for the dead-letter headers: a
   * replay tool reads them to write back to the topic the record came from. Unset: as given.
   */
  readonly wire?: { readonly topic: (name: string) => string; readonly group: (id: string) => string };
}

/**
 * A reason as a header and a stored status can carry it: control characters other than tab and
 * newline are written as `\uXXXX` escapes. A validation message quotes the input it refuses, and a
 * NUL in it could not be stored as PostgreSQL text (the status would never read `failed`).
 */
export function printableReason(message: string): string {
  return message.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Distinct correlation ids of the records, in order of first appearance. */
export function correlationIdsOf(records: readonly BusRecord[]): string[] {
  const ids = new Set<string>();
  for (const record of records) {
    const id = record.headers[CORRELATION_HEADER];
    if (id) ids.add(id);
  }
  return [...ids];
}

/**
 * The delivery semantics both bus implementations share, so the embedded mode behaves exactly
 * like Kafka: retry retriable failures with backoff, send anything else (or the last failure) to
 * the dead-letter topic with its reason, and only then report the record as done so the caller
 * commits its offset. A dependency that is down (see isUnavailable) is waited for without limit:
 * dead-lettering work because PostgreSQL restarted would drop writes that were acknowledged, so
 * the partition waits instead. Only the work's own failures count against maxAttempts.
 * Throws only when the subscription stops mid-retry or the DLQ write fails; either way the
 * record stays uncommitted and is redelivered.
 */
export async function deliver(
  record: BusRecord,
  options: SubscribeOptions,
  deps: DeliveryDeps,
): Promise<DeliveryOutcome> {
  const correlationId = record.headers[CORRELATION_HEADER];
  const log = deps.log.child({
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    correlationId,
  });
  const labels = { topic: record.topic, group: options.groupId };
  const correlationIds = correlationId ? [correlationId] : [];
  const tries = { attempt: 0, waiting: false };
  try {
    await retryOnError(
      async (attempt) => {
        Object.assign(tries, { attempt, waiting: false });
        const timer = deps.metrics.handlerDuration.startTimer(labels);
        try {
          await options.handler(record, { attempt, log, correlationIds, signal: deps.signal });
        } finally {
          timer();
        }
      },
      retryingOf(options.retry, deps.signal, (err, attempt, delayMs) => {
        tries.waiting = true;
        deps.metrics.handledRecords.inc({ ...labels, outcome: 'retried' });
        log.warn({ err, attempt, delayMs }, 'handler failed, retrying');
      }),
    );
  } catch (err) {
    if (tries.waiting) throw new StopRequested(); // only the stop signal ends a wait
    const { attempt } = tries;
    const retriable = isRetriable(err);
    const message = printableReason((err instanceof Error ? err.message : String(err)).slice(0, 2000));
    const code: ErrorCode = isAppError(err) ? err.code : retriable ? 'RETRIES_EXHAUSTED' : 'HANDLER_ERROR';
    await deps.publish(options.dlqTopic, [
      {
        // a null key or value (a tombstone) stays null, so a replay partitions it as the original
        key: record.key,
        value: record.tombstone ? null : record.value,
        headers: {
          ...record.headers,
          [DLQ_HEADERS.reason]: message,
          [DLQ_HEADERS.code]: code,
          [DLQ_HEADERS.attempts]: String(attempt),
          [DLQ_HEADERS.topic]: deps.wire?.topic(record.topic) ?? record.topic,
          [DLQ_HEADERS.partition]: String(record.partition),
          [DLQ_HEADERS.offset]: record.offset,
          [DLQ_HEADERS.groupId]: deps.wire?.group(options.groupId) ?? options.groupId,
        },
      },
    ]);
    deps.metrics.handledRecords.inc({ ...labels, outcome: 'dead_lettered' });
    deps.metrics.deadLetters.inc({ ...labels, reason: code });
    log.error({ err, attempt, code, dlqTopic: options.dlqTopic }, 'record sent to dead-letter topic');
    await options.onDeadLetter?.(record, { code, message }).catch((listenerErr: unknown) => {
      log.warn({ err: listenerErr }, 'dead-letter listener failed');
    });
    return 'dead-lettered';
  }
  deps.metrics.handledRecords.inc({ ...labels, outcome: 'ok' });
  return 'handled';
}

/**
 * The bus's retry policy in retryOnError's terms: the work's own failures count against
 * maxAttempts, while a dependency that is down is waited for without limit; each wait ends with
 * the subscription's stop.
 */
function retryingOf(
  retry: RetryPolicy,
  signal: AbortSignal,
  onRetry: (err: unknown, attempt: number, delayMs: number) => void,
): RetryOnErrorOptions {
  return {
    attempts: Number.POSITIVE_INFINITY,
    backoff: retry,
    retriable: (err, attempt) => isRetriable(err) && (attempt < retry.maxAttempts || isUnavailable(err)),
    onRetry: ({ err, attempt, delayMs }) => onRetry(err, attempt, delayMs),
    signal,
  };
}

/**
 * Delivers consecutive records of one partition. With a batch handler they are handled together,
 * retried together while the failure is retriable; a batch that fails for good falls back to
 * one-by-one delivery, which dead-letters only the records that fail alone. Resolves when every
 * record is handled or dead-lettered, so the caller may commit past the last one.
 *
 * A batch of one record goes to the batch handler too: under light, steady load every partition
 * hands over one record at a time, and a batch handler that merges the partitions' batches into
 * one statement (the converter's) is what keeps that load from becoming one transaction per
 * record per partition (measured in the embedded mode: 1.15 records per statement, 8 at once).
 */
export async function deliverBatch(
  records: readonly BusRecord[],
  options: SubscribeOptions,
  deps: DeliveryDeps,
): Promise<void> {
  const first = records[0];
  if (!first) return;
  if (!options.batchHandler) {
    for (const record of records) await deliver(record, options, deps);
    return;
  }
  const log = deps.log.child({
    topic: first.topic,
    partition: first.partition,
    offset: first.offset,
    records: records.length,
  });
  const labels = { topic: first.topic, group: options.groupId };
  const correlationIds = correlationIdsOf(records);
  const batchHandler = options.batchHandler;
  const tries = { attempt: 0, waiting: false };
  try {
    await retryOnError(
      async (attempt) => {
        Object.assign(tries, { attempt, waiting: false });
        const timer = deps.metrics.handlerDuration.startTimer(labels);
        try {
          await batchHandler(records, { attempt, log, correlationIds, signal: deps.signal });
        } finally {
          timer();
        }
      },
      retryingOf(options.retry, deps.signal, (err, attempt, delayMs) => {
        tries.waiting = true;
        deps.metrics.handledRecords.inc({ ...labels, outcome: 'retried' }, records.length);
        log.warn({ err, attempt, delayMs, correlationIds }, 'batch handler failed, retrying');
      }),
    );
  } catch (err) {
    if (tries.waiting) throw new StopRequested(); // only the stop signal ends a wait
    // Not counted here: the records are counted one by one as the fallback delivers them.
    log.warn({ err, attempt: tries.attempt, correlationIds }, 'batch failed, delivering its records one by one');
    for (const record of records) await deliver(record, options, deps);
    return;
  }
  deps.metrics.handledRecords.inc({ ...labels, outcome: 'ok' }, records.length);
}
