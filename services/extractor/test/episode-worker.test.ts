import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { EpisodeWorker, offlineExtractor, type EpisodeSettings, type Extractor } from '@memstream/extractor';
import type { EpisodicMemory } from '@memstream/schemas';
import { PgStore, appendMessages, listEpisodicMemories, migrate, type Store } from '@memstream/store';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';
import { extractionMetricsOf } from '../src/extraction-metrics.js';

const log = createLogger({ service: 'test', level: 'silent' });

const SETTINGS: EpisodeSettings = {
  // three messages an episode; silence and tokens never close one here
  rules: { maxMessages: 3, maxTokens: 100_000, silenceMs: 24 * 3_600_000 },
  idleCloseMs: 0,
  concurrency: 2,
  leaseMs: 60_000,
  retryInitialMs: 10,
  retryMaxMs: 20,
  topicMinMessages: 4,
};

async function storeWith(t: TestContext, conversationId: string, count: number): Promise<Store> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 4,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  const speakers = ['alice', 'bob'];
  await appendMessages(
    store,
    Array.from({ length: count }, (_, i) => ({
      message: {
        conversation_id: conversationId,
        message_id: `m${i}`,
        sender_id: speakers[i % 2]!,
        sender_name: speakers[i % 2]!,
        role: 'user' as const,
        content: `Line ${i}: ${i % 2 === 0 ? 'the greyhound adoption papers arrive on Friday' : 'then the marathon training starts on Monday'}.`,
        created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
  return store;
}

function worker(
  t: TestContext,
  store: Store,
  extractor: Extractor,
  published: EpisodicMemory[],
  announced: number[] = [],
): EpisodeWorker {
  const w = new EpisodeWorker(
    store,
    extractor,
    undefined,
    SETTINGS,
    async (m) => void published.push(...m),
    log,
    extractionMetricsOf(new Metrics()),
    async (ids) => void announced.push(...ids),
  );
  t.after(() => w.stop());
  return w;
}

const episodesOf = async (store: Store, conversationId: string) =>
  (
    await store.query<{ start_seq: number; end_seq: number; status: string; close_reason: string }>(
      'SELECT start_seq, end_seq, status, close_reason FROM episodes WHERE conversation_id = $1 ORDER BY start_seq',
      [conversationId],
    )
  ).rows;

test('stored messages close episodes by the rules and each is extracted once, however often the same messages are announced', async (t) => {
  const store = await storeWith(t, 'g1', 7);
  const published: EpisodicMemory[] = [];
  const announced: number[] = [];
  const w = worker(t, store, offlineExtractor, published, announced);

  // the consumer announces the conversation once per batch, and again after a redelivery
  await w.advance(['g1']);
  await w.advance(['g1']);
  await w.advance(['g1']);
  const episodes = await waitFor('both full episodes extracted', async () => {
    const rows = await episodesOf(store, 'g1');
    return rows.length === 2 && rows.every((e) => e.status === 'extracted') ? rows : undefined;
  });
  assert.deepEqual(
    episodes.map((e) => [e.start_seq, e.end_seq, e.close_reason]),
    [
      [0, 2, 'message_cap'],
      [3, 5, 'message_cap'],
    ],
    'the seventh message stays open',
  );

  const { items } = await listEpisodicMemories(store, { conversationId: 'g1', limit: 100, offset: 0 });
  // a group narrative and one memory per participant, per episode
  assert.equal(items.length, 6);
  assert.equal(new Set(items.map((m) => m.id)).size, 6, 'no memory stored twice');
  assert.deepEqual(
    new Set(published.map((m) => m.id)),
    new Set(items.map((m) => m.id)),
    'every stored memory was announced to the indexer',
  );
  assert.deepEqual(
    announced.sort((a, b) => a - b),
    [...new Set(items.map((m) => m.episode_id))].sort((a, b) => a - b),
    'each extracted episode was announced once to waiting flushes',
  );
  const narrative = items.find((m) => m.user_id === null && m.message_ids.includes('m0'));
  assert.ok(narrative, 'the first episode has a group narrative');
  assert.deepEqual(narrative.message_ids, ['m0', 'm1', 'm2']);
  assert.match(narrative.content, /15 January 2025/, 'dates are absolute');
});

test('an extraction that fails is parked with a time to try again, and the sweep redoes it', async (t) => {
  const store = await storeWith(t, 'g2', 3);
  let failures = 1;
  const flaky: Extractor = {
    name: 'flaky',
    async extract(input) {
      if (failures-- > 0) throw new Error('model unavailable');
      return offlineExtractor.extract(input);
    },
  };
  const published: EpisodicMemory[] = [];
  const w = worker(t, store, flaky, published);
  await w.advance(['g2']);
  const parked = await waitFor('the episode parked as failed', async () => {
    const { rows } = await store.query<{ status: string; attempts: number; error: string | null }>(
      'SELECT status, attempts, error FROM episodes WHERE conversation_id = $1',
      ['g2'],
    );
    return rows[0]?.status === 'failed' ? rows[0] : undefined;
  });
  assert.deepEqual([parked.attempts, parked.error], [1, 'model unavailable']);

  await waitFor('the sweep extracted it', async () => {
    await w.sweep();
    return (await episodesOf(store, 'g2'))[0]?.status === 'extracted';
  });
  const { items } = await listEpisodicMemories(store, { conversationId: 'g2', limit: 100, offset: 0 });
  assert.ok(items.length > 0);
  assert.equal(published.length, items.length);
});

test('a stored batch that closes no episode is decided without the episode lock; one that closes takes it, as does a closing hint', async (t) => {
  const real = await storeWith(t, 'g3', 0);
  // The real store, counting the transactions (each takes the conversation's episode lock).
  let transactions = 0;
  const store: Store = Object.assign(Object.create(real) as Store, {
    transaction: <T>(fn: Parameters<Store['transaction']>[0]) => {
      transactions++;
      return real.transaction(fn) as Promise<T>;
    },
  });
  const w = worker(t, store, offlineExtractor, []);
  const line = (i: number) => ({
    message: {
      conversation_id: 'g3',
      message_id: `m${i}`,
      sender_id: 'alice',
      sender_name: 'alice',
      role: 'user' as const,
      content: `Line ${i}.`,
      created_at: new Date(Date.UTC(2025, 0, 15, 10, i)),
      refer_list: [],
      metadata: {},
      source_api: 'evermemos' as const,
    },
  });
  const stored = async (...at: number[]) => (await appendMessages(real, at.map(line))).map((r) => r.message);
  await w.advanceMessages(await stored(0, 1));
  assert.equal(transactions, 0, 'two of three messages: nothing closes, no transaction');
  assert.deepEqual(await episodesOf(real, 'g3'), []);
  await w.advanceMessages(await stored(2));
  assert.equal(transactions, 1, 'the third message closes an episode, under the lock');
  assert.deepEqual(
    (await episodesOf(real, 'g3')).map((e) => [e.start_seq, e.end_seq, e.close_reason]),
    [[0, 2, 'message_cap']],
  );
  // A hint comes from a write whose message closes an episode: it reads under the lock at once.
  await waitFor('the episode extracted', async () => (await episodesOf(real, 'g3'))[0]?.status === 'extracted');
  const before = transactions;
  await stored(3);
  await w.advance(['g3']);
  assert.equal(transactions, before + 1, 'a hint takes the lock without looking first');
  assert.equal((await episodesOf(real, 'g3')).length, 1);
});
