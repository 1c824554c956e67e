import assert from 'node:assert/strict';
import { TOPICS } from '@memstream/schemas';
import { waitFor } from '../helpers/infra.js';
import { scrape, series, total, type Sample } from '../helpers/prometheus.js';

/** What the traffic below leaves behind: its group and the correlation id of each write. */
export interface Traffic {
  readonly group: string;
  readonly correlationIds: readonly string[];
}

/**
 * Writes four messages (each with its own `x-correlation-id`) through the write API, then reads:
 * the messages, the agent context, and a stream of a session that does not exist (a 404 on a
 * route with a path parameter, whose label must be the pattern).
 */
export async function driveTraffic(writeBase: string, readBase: string, group: string): Promise<Traffic> {
  const correlationIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const correlationId = `${group}-corr-${i}`;
    const res = await fetch(`${writeBase}/api/v1/memories`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-correlation-id': correlationId },
      body: JSON.stringify({
        group_id: group,
        message_id: `m${i}`,
        create_time: `2025-01-15T10:0${i}:00Z`,
        sender: i % 2 ? 'bot' : 'ann',
        content: `message ${i}`,
      }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal(res.headers.get('x-request-id'), correlationId, 'the correlation id is the request id');
    correlationIds.push(correlationId);
  }
  assert.equal((await fetch(`${readBase}/api/v1/memories?group_id=${group}`)).status, 200);
  assert.equal((await fetch(`${readBase}/api/v1/context?conversation_id=${group}`)).status, 200);
  assert.equal((await fetch(`${readBase}/stream/${group}-no-such-session`)).status, 404);
  return { group, correlationIds };
}

/** Waits until a scrape of `base` satisfies `ready`, then returns it (counters settle after the answer). */
export async function scrapeWhen(
  base: string,
  label: string,
  ready: (samples: Sample[]) => boolean,
): Promise<Sample[]> {
  return waitFor(
    label,
    async () => {
      const samples = await scrape(base);
      return ready(samples) ? samples : undefined;
    },
    60_000,
  );
}

const HTTP_COUNT = 'memstream_http_request_duration_seconds_count';

/** The write API's side: request durations by route pattern, and the produce to the input topic. */
export function checkWriteSeries(samples: readonly Sample[], traffic: Traffic): void {
  assert.equal(
    total(samples, HTTP_COUNT, { method: 'POST', route: '/api/v1/memories', status_code: '200' }),
    traffic.correlationIds.length,
  );
  const input = TOPICS.groupChatInput.name;
  assert.ok(
    total(samples, 'memstream_bus_produce_duration_seconds_count', { topic: input }) >= traffic.correlationIds.length,
  );
  assert.ok(total(samples, 'memstream_bus_produced_records_total', { topic: input }) >= traffic.correlationIds.length);
  assert.ok(total(samples, 'memstream_bus_produce_duration_seconds_sum', { topic: input }) > 0);
  assert.equal(total(samples, 'memstream_bus_produce_errors_total'), 0);
  assert.ok(series(samples, 'process_cpu_user_seconds_total').length > 0, 'default process metrics');
}

/** The read API's side: reads and a path-parameter route, labelled by pattern, never by raw URL. */
export function checkReadSeries(samples: readonly Sample[], traffic: Traffic): void {
  assert.ok(total(samples, HTTP_COUNT, { method: 'GET', route: '/api/v1/memories', status_code: '200' }) >= 1);
  assert.ok(total(samples, HTTP_COUNT, { method: 'GET', route: '/api/v1/context', status_code: '200' }) >= 1);
  assert.equal(total(samples, HTTP_COUNT, { method: 'GET', route: '/stream/:session_id', status_code: '404' }), 1);
  const leaked = series(samples, HTTP_COUNT).filter(
    (s) => s.labels['route']!.includes(traffic.group) || s.labels['route']!.includes('?'),
  );
  assert.deepEqual(leaked, [], 'no raw URL in a route label');
}

/** A consumer's side: lag per partition (0 once caught up), handler durations and outcomes. */
export function checkConsumerSeries(samples: readonly Sample[], topic: string, group: string, atLeastOk: number): void {
  const labels = { topic, group };
  const lag = series(samples, 'memstream_consumer_lag_records', labels);
  assert.ok(lag.length > 0, `lag reported for ${topic}/${group}`);
  assert.ok(
    lag.every((s) => /^\d+$/.test(s.labels['partition']!) && s.value === 0),
    `caught up: ${JSON.stringify(lag)}`,
  );
  assert.ok(total(samples, 'memstream_consumer_handler_duration_seconds_count', labels) >= 1);
  assert.ok(total(samples, 'memstream_consumer_handler_duration_seconds_sum', labels) > 0);
  assert.ok(total(samples, 'memstream_consumer_records_total', { ...labels, outcome: 'ok' }) >= atLeastOk);
}

/** Every record of the traffic counted as handled and the consumer caught up (lag 0 on every partition). */
export function consumerCaughtUp(samples: readonly Sample[], topic: string, group: string, records: number): boolean {
  const lag = series(samples, 'memstream_consumer_lag_records', { topic, group });
  return (
    lag.length > 0 &&
    lag.every((s) => s.value === 0) &&
    total(samples, 'memstream_consumer_records_total', { topic, group, outcome: 'ok' }) >= records
  );
}

/** The summarizer's side: generation durations and the model calls behind them, with tokens. */
export function checkSummarySeries(samples: readonly Sample[], model: string): void {
  assert.ok(
    total(samples, 'memstream_summary_generation_duration_seconds_count', {
      summarizer: `model:${model}`,
      outcome: 'completed',
    }) >= 1,
  );
  const call = { model, operation: 'summarize' };
  assert.ok(total(samples, 'memstream_model_call_duration_seconds_count', { ...call, outcome: 'ok' }) >= 1);
  assert.ok(total(samples, 'memstream_model_tokens_total', { ...call, kind: 'prompt' }) > 0);
  assert.ok(total(samples, 'memstream_model_tokens_total', { ...call, kind: 'completion' }) > 0);
  assert.equal(total(samples, 'memstream_model_call_errors_total'), 0);
}

export function summarized(samples: readonly Sample[]): boolean {
  return total(samples, 'memstream_summary_generation_duration_seconds_count', { outcome: 'completed' }) >= 1;
}

/**
 * The correlation id of each write is on the converter's log line that stored it, and the
 * summarizer's line for a summary names the write that triggered it. A line reaches the test
 * through the process's output, which can come after the metric scraped beside it: the lines are
 * waited for, then checked.
 */
export async function checkCorrelation(
  converterLines: () => readonly Record<string, unknown>[],
  summarizerLines: () => readonly Record<string, unknown>[],
  traffic: Traffic,
): Promise<void> {
  const stored = () =>
    converterLines()
      .filter((l) => l['msg'] === 'group-chat batch stored')
      .flatMap((l) => (l['correlationIds'] as string[] | undefined) ?? []);
  const summaries = () =>
    summarizerLines().filter(
      (l) =>
        typeof l['msg'] === 'string' &&
        l['msg'].startsWith('Summarized messages') &&
        l['conversationId'] === traffic.group,
    );
  await waitFor('the converter logged every write with its stored batch', async () =>
    traffic.correlationIds.every((id) => stored().includes(id)),
  ).catch(() => undefined); // the assertions below say which
  await waitFor('a summary was logged', async () => summaries().length > 0).catch(() => undefined);
  for (const id of traffic.correlationIds)
    assert.ok(stored().includes(id), `the converter logged ${id} with its stored batch`);
  assert.ok(summaries().length > 0, 'a summary was logged');
  assert.ok(
    summaries().some((l) => traffic.correlationIds.includes(l['correlationId'] as string)),
    `a summary line carries a write's correlation id: ${JSON.stringify(summaries().map((l) => l['correlationId']))}`,
  );
}
