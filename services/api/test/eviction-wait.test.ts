import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { claimEvictionJob, createEvictionJob } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';
import { createEvictor } from '../src/families/admin/eviction.js';

const log = createLogger({ service: 'test', level: 'silent' });

// A request's eviction job is a row the periodic sweep can see as soon as it is made: a sweep
// that takes it first must not turn the request into an error (CI saw a 500 from exactly this).
test('a request waits for its eviction job when another runner took it first, and answers with its end', async (t) => {
  const store = await migratedStore(t);
  const evictor = createEvictor(
    { store, responses: undefined, log },
    { batchSize: 10, leaseMs: 30_000, sweepIntervalMs: 3_600_000, maxAttempts: 3 },
  );
  t.after(() => evictor.close());

  const job = await createEvictionJob(store, {
    retentionPeriod: 'P90D',
    cutoff: new Date(Date.now() - 90 * 86_400_000),
    resourceTypes: ['conversation_memberships'],
    requestedBy: 'user:admin',
  });
  // Another runner claims the job and dies holding it: its short lease runs out, and the request takes over.
  const taken = await claimEvictionJob(store, { owner: 'a-sweep-that-died', leaseMs: 500, jobId: job.id });
  assert.equal(taken?.status, 'running');

  const progress: number[] = [];
  const ended = await evictor.run(job.id, (p) => progress.push(p));
  assert.equal(ended?.status, 'completed');
  assert.equal(ended?.attempts, 2);
  assert.equal(progress.at(-1), 100);
});
