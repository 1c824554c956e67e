import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimEvictionJob, createEvictionJob, finishEvictionJob } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';
import { awaitEviction } from '../src/families/admin/eviction-wait.js';

// The API runs no jobs: a request's eviction is a row the governance worker takes, and the request
// waits on the row. Here a worker (its statements) takes the job while the request waits.
test('a request waits for its eviction job while the governance worker runs it, and answers with its end', async (t) => {
  const store = await migratedStore(t);
  const job = await createEvictionJob(store, {
    retentionPeriod: 'P90D',
    cutoff: new Date(Date.now() - 90 * 86_400_000),
    resourceTypes: ['conversation_memberships'],
    requestedBy: 'user:admin',
  });
  let woken = 0;
  const progress: number[] = [];
  const waiting = awaitEviction(store, job.id, { wake: () => (woken += 1), onProgress: (p) => progress.push(p) });

  const taken = await claimEvictionJob(store, { owner: 'governance-worker', leaseMs: 30_000, jobId: job.id });
  assert.equal(taken?.status, 'running');
  await finishEvictionJob(store, { jobId: job.id, owner: 'governance-worker' });

  const ended = await waiting;
  assert.equal(ended?.status, 'completed');
  assert.equal(ended?.lease_owner, 'governance-worker', 'the worker ran it, not the request');
  assert.equal(woken, 1);
  assert.equal(progress.at(-1), 100);
  assert.equal(await awaitEviction(store, '00000000-0000-4000-8000-000000000000'), undefined);
});
