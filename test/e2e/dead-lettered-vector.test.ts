import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TOPICS } from '@memstream/schemas';
import { startModelServer } from '../../harness/model-server.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { waitFor } from '../helpers/infra.js';
import { captureLogger } from '../helpers/logger.js';
import { post, search } from './memory-formation-contract.js';

/**
 * A message whose indexing was dead-lettered gets its vector once the embedding server is back,
 * without an operator. The server refuses for a while (404: a model being swapped; a 5xx is not
 * dead-lettered, the indexer waits for the server instead), the indexer gives up after one try,
 * and the message must still become findable by vector search within a few sweeps. The walk for
 * missing vectors is left at its default (ten minutes), so the dead-letter listener alone must
 * bring the message to the sweep here.
 */
test('a message whose indexing was dead-lettered is embedded by the sweep once the model is back', async (t: TestContext) => {
  const model = await startModelServer();
  t.after(() => model.close());
  const { log, lines } = captureLogger('all-in-one');
  const base = await embeddedMemstream(
    t,
    {
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: model.baseUrl,
      EMBEDDING_API_KEY: 'test',
      EMBEDDING_MODEL: 'fake-embedding',
      EMBEDDING_DIMENSIONS: '12',
      EMBEDDING_MAX_RETRIES: '0',
      CONSUMER_MAX_ATTEMPTS: '1',
      INDEXER_SWEEP_INTERVAL_MS: '200',
    },
    { log },
  );
  const group = 'dead-lettered-vector';
  const at = Date.UTC(2025, 5, 2, 9);

  model.failNext(1_000_000, 404);
  await post(base, group, 'lost', 'The spare key to the boathouse hangs behind the fuse box.', at);
  await waitFor('the message indexing dead-lettered', async () =>
    lines().some((l) => l['msg'] === 'record sent to dead-letter topic' && l['topic'] === TOPICS.messagesStored.name),
  );
  model.failNext(0);

  await post(base, group, 'after', 'Lunch is at noon on the terrace.', at + 60_000);
  const hits = await waitFor(
    'both messages found by vector search',
    async () => {
      const found = await search(base, {
        query: 'where is the boathouse key?',
        group_id: group,
        retrieve_method: 'vector',
        memory_types: ['message'],
      });
      const ids = found.memories.map((m) => m.id);
      return ids.includes('lost') && ids.includes('after') ? ids : undefined;
    },
    15_000,
  );
  assert.equal(hits.length, 2);
});
