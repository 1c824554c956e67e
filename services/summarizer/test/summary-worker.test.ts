import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createChatModel } from '@memstream/llm';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import {
  PgStore,
  openPglite,
  appendMessages,
  claimSummary,
  listSummaries,
  migrate,
  type Store,
} from '@memstream/store';
import {
  SummaryWorker,
  modelSummarizer,
  offlineSummarizer,
  type Summarizer,
  type SummarySettings,
} from '@memstream/summarizer';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';
import { startModelServer, type ModelServer } from '../../../harness/model-server.js';

const log = createLogger({ service: 'test', level: 'silent' });

const backends: Array<[string, (t: TestContext) => Promise<{ open: () => Promise<Store> }>]> = [
  [
    'PGlite',
    async () => {
      const store = await openPglite();
      return { open: async () => store };
    },
  ],
  [
    'native PostgreSQL',
    async (t) => {
      const url = await freshDatabase(t);
      // each open() is a separate pool: a separate replica as far as the database can tell
      return {
        open: async () => new PgStore({ connectionString: url, maxConnections: 4, statementTimeoutMs: 10_000, log }),
      };
    },
  ],
];

const settings: SummarySettings = {
  windowSize: 14,
  summarizeAfterSeq: 5,
  processingTimeoutMs: 60_000,
  concurrency: 4,
  retryInitialMs: 20,
  retryMaxMs: 200,
  minIntervalMs: 0,
};

async function conversation(
  store: Store,
  id: string,
  count: number,
  content = (i: number) => `message ${i}`,
): Promise<void> {
  await appendMessages(
    store,
    Array.from({ length: count }, (_, i) => ({
      message: {
        conversation_id: id,
        message_id: `m${i}`,
        sender_id: i % 2 ? 'bot' : 'ann',
        sender_name: i % 2 ? 'Bot' : 'Ann',
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: content(i),
        created_at: new Date(Date.UTC(2025, 0, 1, 0, i)),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
}

function model(server: ModelServer, maxRetries = 0): Summarizer {
  return modelSummarizer(
    createChatModel({
      baseUrl: server.baseUrl,
      apiKey: undefined,
      model: 'test-model',
      timeoutMs: 10_000,
      maxRetries,
      metrics: new Metrics(),
    }),
  );
}

async function setup(t: TestContext, make: (t: TestContext) => Promise<{ open: () => Promise<Store> }>) {
  const { open } = await make(t);
  const store = await open();
  t.after(() => store.close());
  await migrate(store, log);
  return { store, open };
}

for (const [name, make] of backends) {
  test(`${name}: two replicas racing for one conversation never hold two processing rows`, async (t) => {
    const { store, open } = await setup(t, make);
    await conversation(store, 'race', 6);
    const server = await startModelServer();
    t.after(() => server.close());
    server.hold(); // the first claim's model call waits, so its row stays 'processing'
    const other = name === 'PGlite' ? store : await open();
    if (other !== store) t.after(() => other.close());
    const replicas = [
      new SummaryWorker(store, model(server), settings, log, new Metrics()),
      new SummaryWorker(other, model(server), settings, log, new Metrics()),
    ];
    await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.trigger('race', 5)));
    const rows = await listSummaries(store, 'race');
    assert.equal(rows.filter((r) => r.status === 'processing').length, 1, 'one claim won');
    assert.equal(rows.length, 1, 'the losers wrote nothing');
    server.release();
    await waitFor('the summary completed', async () => (await listSummaries(store, 'race'))[0]?.status === 'completed');
    await Promise.all(replicas.map((r) => r.stop()));
  });

  test(`${name}: a processing row abandoned by a dead replica is failed after the timeout and redone`, async (t) => {
    const { store } = await setup(t, make);
    await conversation(store, 'stuck', 8);
    const orphan = await claimSummary(store, { conversationId: 'stuck', startSequence: 0, endSequence: 7 });
    assert.ok(orphan, 'a replica claimed the conversation, then died');
    const worker = new SummaryWorker(
      store,
      offlineSummarizer,
      { ...settings, processingTimeoutMs: 200 },
      log,
      new Metrics(),
    );
    await worker.trigger('stuck', 7);
    assert.equal((await listSummaries(store, 'stuck')).length, 1, 'while the row is fresh, nobody else may start');
    // each sweep fails the row only once it is older than the timeout, then redoes it
    const rows = await waitFor('redone', async () => {
      await worker.sweep();
      const all = await listSummaries(store, 'stuck');
      return all.some((r) => r.status === 'completed') ? all : undefined;
    });
    assert.equal(rows[0]!.status, 'failed');
    assert.equal(rows[0]!.error, 'processing timed out');
    assert.deepEqual(
      [rows[1]!.status, rows[1]!.start_sequence, rows[1]!.end_sequence, rows[1]!.attempts],
      ['completed', 0, 7, 2],
    );
    await worker.stop();
  });

  test(`${name}: a model failing three times and then succeeding leaves a completed memory`, async (t) => {
    const { store } = await setup(t, make);
    await conversation(store, 'flaky', 6);
    const server = await startModelServer();
    t.after(() => server.close());
    server.failNext(3, 503);
    const worker = new SummaryWorker(store, model(server, 0), settings, log, new Metrics());
    await worker.trigger('flaky', 5);
    // each failure is recorded with a time to retry; the sweep retries once that time has come
    const rows = await waitFor(
      'completed after the failures',
      async () => {
        await worker.sweep();
        const all = await listSummaries(store, 'flaky');
        return all.some((r) => r.status === 'completed') ? all : undefined;
      },
      20_000,
    );
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      [
        ['failed', 1],
        ['failed', 2],
        ['failed', 3],
        ['completed', 4],
      ],
    );
    assert.ok(
      rows.slice(0, 3).every((r) => r.next_attempt_at !== null && r.error !== null),
      'failures say why and when to retry',
    );
    assert.equal(rows[3]!.memory_text, 'Summary covering messages #0-#5 (6 new).');
    assert.equal(server.calls.length, 1, 'one call got through');
    await worker.stop();
  });

  test(`${name}: a busy conversation's summaries are spaced by minIntervalMs, and the newest message still gets one`, async (t) => {
    const { store } = await setup(t, make);
    await conversation(store, 'busy', 12);
    const minIntervalMs = 400;
    const worker = new SummaryWorker(store, offlineSummarizer, { ...settings, minIntervalMs }, log, new Metrics());
    t.after(() => worker.stop());
    await worker.trigger('busy', 5);
    await waitFor('the first summary', async () => (await listSummaries(store, 'busy'))[0]?.status === 'completed');
    // Messages 7, 9 and 11 arrive while the first summary's interval runs: none is claimed now,
    // and one summary of the newest follows once the interval is over.
    for (const seq of [7, 9, 11]) await worker.trigger('busy', seq);
    assert.equal((await listSummaries(store, 'busy')).length, 1, 'nothing claimed inside the interval');
    const rows = await waitFor('the held-back summary', async () => {
      const all = await listSummaries(store, 'busy');
      return all.at(-1)?.status === 'completed' && all.length > 1 ? all : undefined;
    });
    assert.deepEqual(
      rows.map((r) => [r.start_sequence, r.end_sequence]),
      [
        [0, 5],
        [0, 11],
      ],
      'one summary, of the newest trigger',
    );
    const gapMs = rows[1]!.created_at.getTime() - rows[0]!.created_at.getTime();
    assert.ok(gapMs >= minIntervalMs - 50, `the second claim came ${gapMs} ms after the first`);
  });

  test(`${name}: the offline summary holds the window and nothing from before its start`, async (t) => {
    const { store } = await setup(t, make);
    const token = (i: number) => `tok${String(i).padStart(3, '0')}x`;
    await conversation(store, 'slide', 20, (i) => `Point ${token(i)} was raised.`);
    const worker = new SummaryWorker(store, offlineSummarizer, settings, log, new Metrics());
    await worker.trigger('slide', 19);
    const done = await waitFor('summary', async () =>
      (await listSummaries(store, 'slide')).find((r) => r.status === 'completed'),
    );
    assert.deepEqual([done.start_sequence, done.end_sequence], [6, 19]);
    for (let i = 0; i < 20; i++) {
      if (i < 6) assert.ok(!done.memory_text.includes(token(i)), `message ${i} is before the window and must be gone`);
      else assert.ok(done.memory_text.includes(token(i)), `message ${i} is in the window`);
    }
    await worker.stop();
  });
}
