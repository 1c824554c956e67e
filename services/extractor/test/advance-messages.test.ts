import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { closeSpan } from '@memstream/episodes';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { EpisodeWorker, type EpisodeSettings, type Extractor } from '@memstream/extractor';
import type { CanonicalMessage } from '@memstream/schemas';
import { appendMessages, type Store } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';
import { extractionMetricsOf } from '../src/extraction-metrics.js';

// The extractor steps its own tracker over the stored messages a batch brings and reads the open
// span only when that cannot tell. These tests hold it to the old behaviour, one read per
// conversation and batch: fed the same messages in the same batches, both close the same episodes
// after every batch, and the tracked worker reads far less.

const log = createLogger({ service: 'test', level: 'silent' });

const SETTINGS: EpisodeSettings = {
  rules: { maxMessages: 7, maxTokens: 120, silenceMs: 3_600_000 },
  idleCloseMs: 0,
  concurrency: 1,
  leaseMs: 60_000,
  retryInitialMs: 10,
  retryMaxMs: 20,
  topicMinMessages: 4,
};

/** Extraction is not what is tested here: episodes close the same whatever their memories. */
const noMemories: Extractor = { name: 'none', extract: async () => [] };

/** Counts the unlocked span reads (closeSpan's common path) a worker makes through this store. */
function counting(store: Store): { store: Store; spanReads: () => number } {
  let reads = 0;
  const wrapped = new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'query')
        return (sql: string, params?: unknown[]) => {
          if (sql.includes('length(content) AS chars')) reads++;
          return target.query(sql, params);
        };
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, spanReads: () => reads };
}

function workerOn(t: TestContext, store: Store): EpisodeWorker {
  const w = new EpisodeWorker(
    store,
    noMemories,
    undefined,
    SETTINGS,
    async () => undefined,
    log,
    extractionMetricsOf(new Metrics()),
  );
  t.after(() => w.stop());
  return w;
}

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Draft {
  readonly content: string;
  readonly at: number;
  readonly agentOnly: boolean;
}

/** Chat turns with gaps past the silence rule, lengths near the token cap and agent-only turns. */
function drafts(seed: number, count: number, backwards: boolean): Draft[] {
  const random = lcg(seed);
  let at = Date.UTC(2025, 2, 1, 9);
  return Array.from({ length: count }, () => {
    const r = random();
    if (r < 0.08) at += 2 * 3_600_000;
    else if (backwards && r < 0.16) at -= 20 * 60_000;
    else at += Math.floor(random() * 5 * 60_000);
    const words = 1 + Math.floor(random() * (random() < 0.1 ? 60 : 12));
    return { content: 'word '.repeat(words).trim(), at, agentOnly: random() < 0.1 };
  });
}

async function store(s: Store, conversationId: string, batch: readonly Draft[], from: number) {
  const results = await appendMessages(
    s,
    batch.map((d, i) => ({
      message: {
        conversation_id: conversationId,
        message_id: `m${from + i}`,
        sender_id: 'ann',
        sender_name: 'Ann',
        role: 'user' as const,
        content: d.content,
        created_at: new Date(d.at),
        refer_list: [],
        metadata: d.agentOnly ? { ms: { visibility: 'agent' } } : {},
        source_api: 'memory-service' as const,
      },
    })),
  );
  return results.map((r) => r.message);
}

const episodesOf = async (s: Store, conversationId: string) =>
  (
    await s.query<{ start_seq: number; end_seq: number; close_reason: string }>(
      'SELECT start_seq, end_seq, close_reason FROM episodes WHERE conversation_id = $1 ORDER BY start_seq',
      [conversationId],
    )
  ).rows.map((e) => `${e.start_seq}-${e.end_seq}:${e.close_reason}`);

interface Schedule {
  readonly seed: number;
  readonly backwards: boolean;
  /** A flush made elsewhere after every this many batches. */
  readonly flushEvery?: number;
  /** The share of batches whose messages a closing hint reaches before the consumer does. */
  readonly hinted?: number;
}

async function compare(t: TestContext, options: Schedule) {
  const db = await migratedStore(t);
  const reference = workerOn(t, db);
  const tracked = counting(db);
  const worker = workerOn(t, tracked.store);
  const messages = drafts(options.seed, 400, options.backwards);
  const random = lcg(options.seed + 1);
  let batches = 0;
  let closed = 0;
  for (let at = 0; at < messages.length; batches++) {
    const batch = messages.slice(at, at + 1 + Math.floor(random() * 5));
    await store(db, 'read', batch, at);
    const stored: CanonicalMessage[] = await store(db, 'tracked', batch, at);
    at += batch.length;
    await reference.advance(['read']);
    // a held write's hint, which is heard before the consumer's batch brings the same messages
    if (options.hinted && random() < options.hinted) await worker.advance(['tracked']);
    await worker.advanceMessages(random() < 0.5 ? stored : [...stored].reverse());
    if (options.flushEvery && batches % options.flushEvery === options.flushEvery - 1) {
      // a flush made elsewhere (the converter), which the tracked worker does not hear of
      await closeSpan(db, 'read', SETTINGS.rules, 'flush');
      await closeSpan(db, 'tracked', SETTINGS.rules, 'flush');
    }
    const [expected, actual] = [await episodesOf(db, 'read'), await episodesOf(db, 'tracked')];
    assert.deepEqual(actual, expected, `episodes after batch ${batches}`);
    closed = expected.length;
  }
  assert.ok(closed > 30, `the messages close many episodes (${closed})`);
  const reasons = new Set((await episodesOf(db, 'read')).map((e) => e.split(':')[1]));
  for (const reason of ['silence', 'message_cap', 'token_cap'])
    assert.ok(reasons.has(reason), `some episode closes for ${reason}`);
  return { batches, spanReads: tracked.spanReads() };
}

test('stepping over stored messages closes the same episodes as reading the span for every batch, times running backwards included', async (t) => {
  const { batches, spanReads } = await compare(t, { seed: 7, backwards: true });
  // a read for the first batch, then only where an episode may close (about one batch in four here)
  assert.ok(spanReads < batches / 2, `${spanReads} span reads for ${batches} batches`);
});

test('after a flush it does not hear of, the tracked worker still closes what reading would', async (t) => {
  const { batches, spanReads } = await compare(t, { seed: 11, backwards: false, flushEvery: 9 });
  assert.ok(spanReads < batches, `${spanReads} span reads for ${batches} batches`);
});

test('a closing hint heard before the batch closes the same episodes, and the batch it ran ahead of reads nothing again', async (t) => {
  const { batches, spanReads } = await compare(t, { seed: 23, backwards: true, hinted: 0.3 });
  // The hint reads under the lock; what it read is what the tracker steps on from. Forgetting the
  // conversation instead, or not stepping over what that read covered, makes the batch after each
  // hint read the span again (93 and 90 reads for 136 batches here; 46 as it is).
  assert.ok(spanReads < batches / 2, `${spanReads} span reads for ${batches} batches`);
});
