/**
 * One measured step of bench:scale, on a database already grown to the step's size: held writes
 * and their raw baseline, the producer path and its two baselines (the raw kafkajs producer, and
 * the raw consumer pipeline of raw-pipeline.ts), indexing lag, search latency, sizes. Each pass
 * writes its own ids, so the step's figures never count another pass's rows.
 */
import { Kafka, logLevel } from 'kafkajs';
import type pg from 'pg';
import { TOPICS } from '@memstream/schemas';
import { runHttpLoad, successes } from './http-load.js';
import { produceRecords } from './kafka-load.js';
import { monotonicUs, type Window } from './cpu-profile.js';
import type { ProcMonitor } from './proc-monitor.js';
import { rawHeldInserts, startRawConsumer } from './raw-pipeline.js';
import {
  closeWindow,
  openWindow,
  searchLatencies,
  messagesWithVectors,
  storedIn,
  vectorsIn,
  waitFor,
  type CpuPerMessage,
  type SearchScope,
} from './scale-measure.js';
import { PassWorkload, type Turns } from './scale-workload.js';
import { ratePerSecond, round, summarizeLatencies } from './stats.js';

export interface StepContext {
  readonly client: pg.Client;
  readonly database: string;
  readonly url: string;
  readonly brokers: readonly string[];
  readonly topicPrefix: string;
  readonly monitor: ProcMonitor;
  /** label -> pid of the services and the bench itself. */
  readonly watched: ReadonlyMap<string, number>;
  readonly gatewayOrigin: string;
  readonly readOrigin: string;
  readonly turns: Turns;
  readonly settings: {
    readonly heldWrites: number;
    readonly concurrency: number;
    readonly producerMessages: number;
    readonly producerGroups: number;
    readonly kafkaChunk: number;
    readonly queries: number;
    readonly perConversation: number;
    readonly storeTimeoutMs: number;
  };
  readonly died: () => string | undefined;
  readonly progress: (line: string) => void;
  /**
   * Each producer pass's span on the monotonic clock, by its tag (`s<step>r<round>`, `s<step>q<round>
   * paused` for storing alone): bench:scale --profile reads the converter's profile by them.
   */
  readonly passes: Array<{ readonly pass: string; readonly window: Window }>;
}

const SERVICES = ['gateway', 'converter', 'indexer'];

export async function heldWrites(ctx: StepContext, step: number, conversations: number) {
  const { client, database, monitor, settings } = ctx;
  const workload = new PassWorkload(`h${step}`, 1, ctx.turns, {
    conversations,
    perConversation: settings.perConversation,
  });
  const window = await openWindow(monitor, client, database, ctx.watched);
  const load = await runHttpLoad({
    origin: ctx.gatewayOrigin,
    path: '/api/v1/memories',
    total: settings.heldWrites,
    concurrency: settings.concurrency,
    bodyAt: (i) => JSON.stringify(workload.message(i)),
    timeoutMs: 60_000,
  });
  const accepted = successes(load.statuses);
  const cpu = await closeWindow(window, monitor, client, database, SERVICES, accepted);
  // Their vectors before anything else is timed: the indexer still at them took 0.6 of a core of
  // PostgreSQL from the producer pass after, at a million messages, and from this raw baseline.
  const written = Array.from({ length: settings.heldWrites }, (_, i) => {
    const m = workload.message(i);
    return { conversation: m.group_id, messageId: m.message_id };
  });
  const indexed = await waitFor(
    () => messagesWithVectors(client, written),
    accepted,
    settings.storeTimeoutMs,
    ctx.died,
  );
  const raw = await rawHeldInserts(
    ctx.url,
    new PassWorkload(`hr${step}`, settings.concurrency, ctx.turns),
    settings.heldWrites,
    settings.concurrency,
  );
  const perS = ratePerSecond(accepted, load.endedAt - load.startedAt);
  const latency = summarizeLatencies(load.latenciesMs);
  return {
    writes: settings.heldWrites,
    accepted,
    statuses: load.statuses,
    per_s: perS,
    p50_ms: latency.p50,
    p99_ms: latency.p99,
    raw_insert_per_s: raw.per_s,
    of_raw: raw.per_s > 0 ? round(perS / raw.per_s, 3) : 0,
    cpu_us_per_message: cpu,
    indexed_after_s: round((indexed.at - load.endedAt) / 1000, 2),
    indexed_complete: indexed.complete,
    ...(load.firstError ? { first_error: load.firstError } : {}),
  };
}

/**
 * One producer pass: records onto the input topic, timed until all are stored, then until all
 * have vectors. `indexerPaused`: the indexer process is stopped (SIGSTOP) until they are stored
 * and continued (SIGCONT) after, so the pass measures what storing costs while indexing waits,
 * which it does anyway on a machine whose cores it shares (the pass is far shorter than the
 * consumer group's session timeout, so the indexer keeps its partitions).
 */
async function producerPath(ctx: StepContext, tag: string, indexerPaused = false) {
  const { client, database, monitor, settings } = ctx;
  const total = settings.producerMessages;
  const workload = new PassWorkload(`p${tag}`, settings.producerGroups, ctx.turns);
  const groups = workload.groupIds(total);
  const indexer = ctx.watched.get('indexer');
  const window = await openWindow(monitor, client, database, ctx.watched);
  if (indexerPaused && indexer !== undefined) process.kill(indexer, 'SIGSTOP');
  const fromUs = monotonicUs();
  let stored: Awaited<ReturnType<typeof waitFor>>;
  let produced: Awaited<ReturnType<typeof produceRecords>>;
  try {
    produced = await produceRecords({
      brokers: ctx.brokers,
      topic: `${ctx.topicPrefix}${TOPICS.groupChatInput.name}`,
      total,
      chunkSize: settings.kafkaChunk,
      recordAt: (i) => workload.kafkaRecord(i),
    });
    stored = await waitFor(() => storedIn(client, groups), total, settings.storeTimeoutMs, ctx.died);
  } finally {
    if (indexerPaused && indexer !== undefined) process.kill(indexer, 'SIGCONT');
  }
  ctx.passes.push({ pass: `${tag}${indexerPaused ? ' paused' : ''}`, window: { fromUs, toUs: monotonicUs() } });
  const cpu = await closeWindow(window, monitor, client, database, SERVICES, stored.value);
  const storedPerS = ratePerSecond(stored.value, stored.at - produced.startedAt);
  ctx.progress(`producer path: ${stored.value} stored at ${storedPerS}/s; waiting for their vectors`);
  const indexed = await waitFor(() => vectorsIn(client, groups), total, settings.storeTimeoutMs, ctx.died);
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM search_keyword_pending');
  return {
    messages: total,
    stored: stored.value,
    stored_complete: stored.complete,
    stored_per_s: storedPerS,
    raw_producer_per_s: ratePerSecond(produced.acked, produced.endedAt - produced.startedAt),
    cpu_us_per_message: cpu,
    indexing_lag_s: round((indexed.at - stored.at) / 1000, 2),
    indexed_complete: indexed.complete,
    keyword_pending_after: rows[0]!.n,
  };
}

/** The same number of records through a plain producer and the raw consumer pipeline. */
async function rawPipeline(ctx: StepContext, tag: string) {
  const { client, database, monitor, settings } = ctx;
  const total = settings.producerMessages;
  const topic = `${ctx.topicPrefix}scale.raw.${tag}`;
  await createTopicLike(ctx, topic);
  const consumer = await startRawConsumer({
    brokers: ctx.brokers,
    topic,
    groupId: `${ctx.topicPrefix}raw-${tag}`,
    url: ctx.url,
    total,
  });
  try {
    const workload = new PassWorkload(`r${tag}`, settings.producerGroups, ctx.turns);
    const window = await openWindow(monitor, client, database, ctx.watched);
    const produced = await produceRecords({
      brokers: ctx.brokers,
      topic,
      total,
      chunkSize: settings.kafkaChunk,
      recordAt: (i) => workload.kafkaRecord(i),
    });
    const done = await Promise.race([
      consumer.done,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('raw pipeline timed out')), settings.storeTimeoutMs).unref(),
      ),
    ]);
    // The raw consumer runs in the bench's own process, beside the producer.
    const cpu = await closeWindow(window, monitor, client, database, ['bench'], done.stored);
    return {
      stored_per_s: ratePerSecond(done.stored, done.endedAt - produced.startedAt),
      raw_producer_per_s: ratePerSecond(produced.acked, produced.endedAt - produced.startedAt),
      cpu_us_per_message: { bench_producer_and_consumer: cpu['bench'], postgres: cpu['postgres'] },
    };
  } finally {
    await consumer.stop();
  }
}

/**
 * A topic of as many partitions as the input topic. A loaded broker has answered a new topic's
 * metadata with "does not host this topic-partition" for a while: that is retried.
 */
async function createTopicLike(ctx: StepContext, topic: string): Promise<void> {
  const admin = new Kafka({ clientId: 'bench-scale', brokers: [...ctx.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const input = `${ctx.topicPrefix}${TOPICS.groupChatInput.name}`;
    const [meta] = (await admin.fetchTopicMetadata({ topics: [input] })).topics;
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.createTopics({ topics: [{ topic, numPartitions: meta!.partitions.length }], waitForLeaders: true });
        await admin.fetchTopicMetadata({ topics: [topic] });
        return;
      } catch (err) {
        if (attempt >= 10) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * A round's own CPU, in short (the first round's is given in full above): whether a round costs
 * more than the others is then read from the line, not guessed.
 */
function roundCpu(cpu: CpuPerMessage) {
  const of = (v: CpuPerMessage[string] | undefined) => (typeof v === 'number' ? v : 0);
  return {
    ...Object.fromEntries(SERVICES.map((label) => [label, of(cpu[label])])),
    postgres: of(cpu['postgres']),
    postgres_converter: cpu.postgres_by_client['converter'] ?? 0,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return round(s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2, 3);
};

/**
 * The producer path and the raw consumer pipeline in alternated rounds (P R, R P, ...), so both
 * see the same machine: on a shared machine one pass of each, minutes apart, compared others'
 * load more than ours. Each producer pass waits for its vectors before the next pass starts, so
 * no pass pays for the indexer's backlog of the one before. The first producer round's CPU
 * figures are reported; the ratio is the median of the rounds' ratios.
 */
export async function producerComparison(ctx: StepContext, step: number, rounds: number, pausedRounds: number) {
  const paths: Awaited<ReturnType<typeof producerPath>>[] = [];
  const raws: Awaited<ReturnType<typeof rawPipeline>>[] = [];
  for (let r = 0; r < rounds; r++) {
    const tag = `s${step}r${r}`;
    if (r % 2 === 0) {
      paths.push(await producerPath(ctx, tag));
      raws.push(await rawPipeline(ctx, tag));
    } else {
      raws.push(await rawPipeline(ctx, tag));
      paths.push(await producerPath(ctx, tag));
    }
    ctx.progress(
      `round ${r + 1}: producer path ${paths.at(-1)!.stored_per_s}/s, raw pipeline ${raws.at(-1)!.stored_per_s}/s`,
    );
  }
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 3) : 0);
  // Storing alone, each such pass after a raw pipeline round of its own.
  const paused: Array<Awaited<ReturnType<typeof producerPath>> & { raw_pipeline_per_s: number }> = [];
  for (let r = 0; r < pausedRounds; r++) {
    const raw = await rawPipeline(ctx, `s${step}q${r}`);
    const path = await producerPath(ctx, `s${step}q${r}`, true);
    ctx.progress(`indexer paused: producer path ${path.stored_per_s}/s, raw pipeline ${raw.stored_per_s}/s`);
    paused.push({ ...path, raw_pipeline_per_s: raw.stored_per_s });
  }
  return {
    producer_path: {
      ...paths[0]!,
      stored_per_s: median(paths.map((p) => p.stored_per_s)),
      raw_producer_per_s: median(paths.map((p) => p.raw_producer_per_s)),
      indexing_lag_s: median(paths.map((p) => p.indexing_lag_s)),
      of_raw_pipeline: median(paths.map((p, i) => ratio(p.stored_per_s, raws[i]!.stored_per_s))),
      of_raw_producer: median(paths.map((p) => ratio(p.stored_per_s, p.raw_producer_per_s))),
      rounds: paths.map((p, i) => ({
        stored_per_s: p.stored_per_s,
        raw_pipeline_per_s: raws[i]!.stored_per_s,
        raw_producer_per_s: p.raw_producer_per_s,
        indexing_lag_s: p.indexing_lag_s,
        cpu_us_per_message: roundCpu(p.cpu_us_per_message),
      })),
      ...(paused.length > 0
        ? {
            indexer_paused: {
              stored_per_s: median(paused.map((p) => p.stored_per_s)),
              of_raw_pipeline: median(paused.map((p) => ratio(p.stored_per_s, p.raw_pipeline_per_s))),
              cpu_us_per_message: paused[0]!.cpu_us_per_message,
              rounds: paused.map((p) => ({
                stored_per_s: p.stored_per_s,
                raw_pipeline_per_s: p.raw_pipeline_per_s,
                raw_producer_per_s: p.raw_producer_per_s,
                indexing_lag_s: p.indexing_lag_s,
                cpu_us_per_message: roundCpu(p.cpu_us_per_message),
              })),
            },
          }
        : {}),
    },
    raw_pipeline: {
      ...raws[0]!,
      stored_per_s: median(raws.map((r) => r.stored_per_s)),
      raw_producer_per_s: median(raws.map((r) => r.raw_producer_per_s)),
    },
  };
}

/** Hybrid search p50/p95 in a group, over a person's conversations, and over everything. */
export async function searches(ctx: StepContext, conversations: number) {
  const words = (i: number) => {
    const text = ctx.turns.texts[(i * 7919) % ctx.turns.texts.length]!;
    const long = text.split(/[^\p{L}]+/u).filter((w) => w.length > 3);
    return long.slice(0, 3).join(' ') || text.slice(0, 30);
  };
  const pick = (i: number, n: number) => (Math.imul(i + 11, 2654435761) >>> 0) % n;
  const scopes: SearchScope[] = [
    { name: 'group', body: (i) => ({ query: words(i), group_id: `scale-g${pick(i, conversations)}` }) },
    {
      name: 'person',
      body: (i) => ({ query: words(i), user_id: `a${pick(i, Math.max(1, Math.floor(conversations / 10)))}` }),
    },
    { name: 'all', body: (i) => ({ query: words(i) }) },
  ];
  return searchLatencies(ctx.readOrigin, scopes, ctx.settings.queries);
}
