import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { claimErasureJob, createErasureJob, noErasureCounts, type ErasureJob } from '@memstream/store';
import { runErasureJob, type ErasureStep } from '@memstream/governance';
import { waitFor } from '../../../test/helpers/infra.js';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

const log = createLogger({ service: 'test', level: 'silent' });
const LEASE_MS = 300;

// The transport step waits for consumer groups, which may take longer than a lease: another
// worker's sweep must not take the job over meanwhile (it would cut and count the topics again).
test('a step outside the database keeps its job leased while it runs', async (t) => {
  const store = await migratedStore(t);
  const job = await createErasureJob(store, {
    userId: 'pia',
    requestedBy: 'admin',
    self: false,
    firstStep: 'waiting',
  });
  const leaseEnd = async () => {
    const { rows } = await store.query<{ at: Date }>('SELECT leased_until AS at FROM erasure_jobs WHERE id = $1', [
      job.id,
    ]);
    return rows[0]!.at.getTime();
  };
  let claimedMeanwhile: ErasureJob | undefined | 'not tried' = 'not tried';
  const steps: ErasureStep[] = [
    {
      name: 'waiting',
      outside: async () => {
        const first = await leaseEnd();
        // until the first lease has run out (the database's clock), then as a sweep would
        await waitFor(
          'the first lease ran out',
          async () => {
            const { rows } = await store.query<{ now: Date }>('SELECT clock_timestamp() AS now');
            return rows[0]!.now.getTime() > first;
          },
          10_000,
        );
        claimedMeanwhile = await claimErasureJob(store, { owner: 'another worker', leaseMs: LEASE_MS, jobId: job.id });
        return { counts: noErasureCounts() };
      },
    },
  ];
  const ended = await runErasureJob(
    {
      store,
      owner: 'this worker',
      leaseMs: LEASE_MS,
      batchSize: 10,
      discard: async () => undefined,
      maxAttempts: 3,
      log,
    },
    job.id,
    steps,
  );
  assert.equal(claimedMeanwhile, undefined, 'nobody took the job over while its step ran');
  assert.equal(ended?.status, 'completed');
});
