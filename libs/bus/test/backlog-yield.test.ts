import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { BacklogYield, KafkaBus, MemoryBus, consumerLag, type BacklogYieldOptions, type Bus } from '@memstream/bus';
import { Metrics } from '@memstream/metrics';
import { deleteTopics, infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });
const retry = { maxAttempts: 1, initialDelayMs: 10, maxDelayMs: 10 };
/** Where a hold should have ended by itself long before: a wrong hold fails the test rather than hanging it. */
const GUARD_MS = 60_000;
const guarded = (y: BacklogYield) => y.clear(AbortSignal.timeout(GUARD_MS));

const implementations: Array<[string, () => Bus]> = [
  ['in-process bus', () => new MemoryBus(log, 1, new Metrics(), { commitIntervalMs: 10 })],
  [
    'Kafka bus',
    () =>
      new KafkaBus({
        brokers: infra().kafkaBrokers,
        clientId: 'backlog-yield-test',
        log,
        defaultPartitions: 1,
        replicationFactor: 1,
        requestTimeoutMs: 30_000,
        metrics: new Metrics(),
      }),
  ],
];

/**
 * A topic of `initial` records (`publish` adds more) and a consumer group that handles one record
 * each time the test lets it (`let`): the write path, its backlog in the test's hands.
 */
async function writePath(bus: Bus, initial: number) {
  let records = 0;
  const topic = uniqueName('input');
  const groupId = uniqueName('writer');
  await bus.ensureTopics([{ name: topic }, { name: `${topic}.dlq` }]);
  let allowed = 0;
  let handled = 0;
  let wake: (() => void) | undefined;
  const subscribe = () =>
    bus.subscribe({
      groupId,
      topic,
      dlqTopic: `${topic}.dlq`,
      retry,
      handler: async () => {
        // one partition: one record in the handler at a time
        while (handled >= allowed) await new Promise<void>((go) => (wake = go));
        handled++;
      },
    });
  const publish = async (n: number) => {
    await bus.publish(
      topic,
      Array.from({ length: n }, (_, i) => ({ key: 'k', value: String(records + i) })),
    );
    records += n;
  };
  await publish(initial);
  const lag = async () => (await consumerLag(bus, [{ topic, groupIds: [groupId] }]))[0]!.lag;
  // A new Kafka topic's offsets may not be readable at once, and a look that fails holds nobody.
  await waitFor('offsets readable', () =>
    lag().then(
      (n) => n === initial,
      () => false,
    ),
  );
  return {
    topic,
    watched: [{ topic, groupIds: [groupId] }],
    subscribe,
    lag,
    publish,
    allowed: () => allowed,
    /** Lets `n` more records be handled. */
    let(n: number) {
      allowed += n;
      wake?.();
      wake = undefined;
    },
    /** Waits until the group committed past `n` records. */
    committedPast: (n: number) => waitFor(`${n} committed`, async () => (await lag()) <= records - n),
  };
}

/**
 * A write path 40 records behind on `make`'s bus and a yield watching it with `limits`; unless
 * `idle`, it has been looked at before and after its first record was committed, so it moves.
 */
async function behindAndMoving(
  t: TestContext,
  make: () => Bus,
  limits: Pick<BacklogYieldOptions, 'maxHoldMs' | 'stalledAfterMs' | 'metrics'>,
  idle = false,
) {
  const bus = make();
  let writer: Awaited<ReturnType<typeof writePath>> | undefined;
  // the handler in flight waits to be let through: let everything through, then close
  t.after(async () => {
    writer?.let(1_000);
    await bus.close();
  });
  const input = await writePath(bus, 40);
  writer = input;
  if (bus.kind === 'kafka') t.after(() => deleteTopics((n) => n.startsWith(input.topic)));
  const yielding = new BacklogYield(bus, { watched: input.watched, lag: 10, pollMs: 20, log, ...limits });
  if (idle) return { input, yielding };
  await yielding.clear();
  await input.subscribe();
  input.let(1);
  await input.committedPast(1);
  return { input, yielding };
}

for (const [name, make] of implementations) {
  test(`${name}: background work waits while the write path works off its backlog, and goes on once it is within the limit`, async (t) => {
    const metrics = new Metrics();
    const limits = { maxHoldMs: 600_000, stalledAfterMs: 30_000, metrics: { registry: metrics, holder: 'test' } };
    const { input, yielding } = await behindAndMoving(t, make, limits, true);
    const series = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => v.labels['holder'] === 'test')?.value;
    // Nothing consumed yet: 40 behind but not moving, so nobody is held.
    assert.ok((await guarded(yielding)) < GUARD_MS);
    await input.subscribe();
    input.let(1);
    await input.committedPast(1);
    // Now the write path moves and is 39 behind: a caller waits for it.
    let releasedAt: number | undefined;
    const held = guarded(yielding).then((ms) => {
      releasedAt = input.allowed();
      return ms;
    });
    await waitFor('holding', async () => (await series('memstream_background_holding')) === 1);
    for (let n = 1; n < 30 && releasedAt === undefined; n += 10) {
      input.let(10);
      await input.committedPast(n + 10);
    }
    const ms = await held;
    assert.ok(releasedAt !== undefined && releasedAt >= 30, `released after ${releasedAt} of 40 were let through`);
    assert.ok(ms < GUARD_MS, `released by the backlog (${ms} ms)`);
    assert.ok((await input.lag()) <= 10);
    // the hold is counted (the first call, not held, is not), and the gauge is down again
    assert.equal(await series('memstream_background_holding'), 0);
    const counted = await series('memstream_background_held_seconds_total');
    assert.ok(counted !== undefined && Math.abs(counted - ms / 1000) < 0.001, `counted ${counted} s for ${ms} ms`);
  });

  test(`${name}: a backlog that outlasts the longest hold is let be until it is worked off`, async (t) => {
    const { input, yielding } = await behindAndMoving(t, make, { maxHoldMs: 300, stalledAfterMs: 30_000 });
    // Moving, but behind for longer than the longest hold: held that long once...
    assert.ok((await guarded(yielding)) >= 300);
    // ...and then not again while the same backlog lasts.
    input.let(1);
    await input.committedPast(2);
    assert.ok((await guarded(yielding)) < 300);
    assert.ok((await input.lag()) > 10);

    // Worked off, then a new backlog: it holds again.
    input.let(30);
    await input.committedPast(32);
    await yielding.clear();
    await input.publish(40);
    input.let(1);
    await input.committedPast(33);
    const again = await guarded(yielding);
    assert.ok(again >= 300 && again < GUARD_MS, `held ${again} ms`);
  });

  test(`${name}: a write path that stops committing lets a held caller go`, async (t) => {
    const { input, yielding } = await behindAndMoving(t, make, { maxHoldMs: 600_000, stalledAfterMs: 1_500 });
    // Held while it moves; it then takes nothing more (its process stuck), and holding would not help it.
    const ms = await guarded(yielding);
    assert.ok(ms >= 1_500 && ms < GUARD_MS, `held ${ms} ms`);
    assert.ok((await input.lag()) > 10);
  });

  // The write path idles (it last committed long ago, if ever), then a burst arrives: background
  // work waits from the first look that sees it, not from the write path's first commit.
  test(`${name}: a burst after a quiet spell holds at once, until it is worked off`, async (t) => {
    const { input, yielding } = await behindAndMoving(t, make, { maxHoldMs: 600_000, stalledAfterMs: 5_000 }, true);
    await input.subscribe();
    input.let(40);
    await input.committedPast(40);
    assert.ok((await guarded(yielding)) < GUARD_MS); // a look within the limit: no backlog yet
    await input.publish(40); // nothing of it is committed: the handler waits to be let
    await new Promise((r) => setTimeout(r, 50)); // the last look (20 ms) is out of date
    let releasedAt: number | undefined;
    const held = guarded(yielding).then((ms) => {
      releasedAt = input.allowed();
      return ms;
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(releasedAt, undefined, 'held before the write path committed anything of the burst');
    input.let(35);
    await input.committedPast(75);
    const ms = await held;
    assert.ok(ms >= 300 && ms < 5_000, `held ${ms} ms, until the backlog was worked off`);
  });

  test(`${name}: a burst the write path never starts on holds no longer than a stalled one`, async (t) => {
    const { input, yielding } = await behindAndMoving(t, make, { maxHoldMs: 600_000, stalledAfterMs: 1_500 }, true);
    await input.subscribe();
    input.let(40);
    await input.committedPast(40);
    assert.ok((await guarded(yielding)) < GUARD_MS); // worked off
    await input.publish(40); // and the write path takes none of it
    await new Promise((r) => setTimeout(r, 50));
    const ms = await guarded(yielding);
    assert.ok(ms >= 1_400 && ms < GUARD_MS, `held ${ms} ms`);
    assert.ok((await input.lag()) > 10);
  });

  test(`${name}: a held caller whose work is stopping is let go`, async (t) => {
    const { yielding } = await behindAndMoving(t, make, { maxHoldMs: 600_000, stalledAfterMs: 30_000 });
    const stopping = new AbortController();
    const held = yielding.clear(stopping.signal);
    await new Promise((r) => setTimeout(r, 200));
    stopping.abort();
    const ms = await held;
    // held until the abort: a timer counts from the event loop's cached clock, so by Date.now it
    // may fire a few ms early (seen: 199)
    assert.ok(ms >= 180 && ms < GUARD_MS, `held ${ms} ms`);
  });
}
