import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '@memstream/config';
import { allInOneEnv } from '@memstream/all-in-one';
import { createLogger } from '@memstream/logging';
import { Metrics } from '@memstream/metrics';
import { Lifecycle } from '@memstream/runtime';
import { startEmbedded } from '@memstream/all-in-one';
import { waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';
import { post, search } from './memory-formation-contract.js';

/** The embedded mode on a data folder that outlives it, so a second start finds the first's data. */
async function start(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ base: string; stop: () => Promise<void> }> {
  const log = createLogger({ service: 'reembed-test', level: 'silent' });
  // Longer than the PostgreSQL server's own stop, so the next start finds it stopped (test/helpers/embedded.ts).
  const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 60_000, exit: () => undefined });
  const config = loadConfig(allInOneEnv, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INDEXER_SWEEP_INTERVAL_MS: '200',
    ...env,
  });
  const port = await startEmbedded({ config, log, lifecycle, metrics: new Metrics() });
  lifecycle.markReady();
  return { base: `http://127.0.0.1:${port}`, stop: async () => void (await lifecycle.shutdown()) };
}

interface Stats {
  result: { embedding_model: string; indexed_messages: number; current_vectors: number; search_items: number };
}

// A deployment that changes its embedding model (or dimension) keeps one index per model: search
// reads only the new model's vectors, and the indexer re-embeds the old ones in the background.
test('changing the embedding model and dimension re-embeds in the background; search never mixes models', async (t: TestContext) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'memstream-reembed-'));
  // One hook, in this order: a server still running writes into the folder being removed.
  const stops: Array<() => Promise<void>> = [];
  t.after(async () => {
    for (const stop of stops) await stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const group = 'reembed';
  const first = await start(dataDir, { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '256' });
  const lines = [
    'The boiler in the basement is leaking again.',
    'I booked the plumber for Tuesday morning.',
    'Can someone water the plants?',
  ];
  for (const [i, text] of lines.entries()) await post(first.base, group, `r${i}`, text, Date.UTC(2025, 2, 1, 8, i));
  const before = await waitFor('indexed with the first model', async () => {
    const s = (await call<Stats>(first.base, 'GET', `/api/v1/stats/memory?group_id=${group}`)).body.result;
    return s.indexed_messages === 3 && s.current_vectors >= 3 ? s : undefined;
  });
  assert.equal(before.embedding_model, 'hash/bow-v1-256');
  await first.stop();

  const second = await start(dataDir, { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64' });
  stops.push(second.stop);
  const after = await waitFor(
    'every item re-embedded with the new model',
    async () => {
      const s = (await call<Stats>(second.base, 'GET', `/api/v1/stats/memory?group_id=${group}`)).body.result;
      return s.current_vectors === s.search_items && s.search_items >= 3 ? s : undefined;
    },
    30_000,
  );
  assert.equal(after.embedding_model, 'hash/bow-v1-64');
  const hits = await search(second.base, {
    query: 'plumber booked',
    group_id: group,
    retrieve_method: 'vector',
    memory_types: ['message'],
  });
  assert.equal(hits.memories[0]!.id, 'r1');
  // New writes land in the new model's space alongside the re-embedded ones.
  await post(second.base, group, 'r3', 'The plumber fixed the boiler.', Date.UTC(2025, 2, 4, 8));
  await waitFor('the new message indexed', async () => {
    const r = await search(second.base, {
      query: 'plumber fixed boiler',
      group_id: group,
      retrieve_method: 'vector',
      memory_types: ['message'],
    });
    return r.memories[0]?.id === 'r3' ? true : undefined;
  });
});
