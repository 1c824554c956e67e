import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLogger } from '@memstream/logging';
import {
  claimConversation,
  createErasureJob,
  erasureInProgress,
  findErasureJob,
  insertConversation,
  noErasureCounts,
  recordRequestOutcomes,
  removeMembership,
  requestTransfer,
  setMembership,
  type ErasureJob,
  type Store,
} from '@memstream/store';
import { erasureSteps, runErasureJob, type ErasureStep } from '@memstream/governance';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

const log = createLogger({ service: 'test', level: 'silent' });
const PERSON = 'alice6';

async function storeFor(t: TestContext): Promise<Store> {
  return migratedStore(t);
}

/** A conversation of `owner`'s, as memory-service makes one. */
async function conversationOf(store: Store, owner: string): Promise<string> {
  const id = randomUUID();
  await insertConversation(store, { id, groupId: id, title: null, metadata: {}, fork: null });
  await claimConversation(store, id, owner);
  return id;
}

/**
 * The erasure's own steps with one more before its final check, which `meanwhile` fills: what a
 * writer stores while the job runs, as late in the pass as it can be.
 */
async function eraseWhile(store: Store, job: ErasureJob, meanwhile: () => Promise<void>) {
  const steps: ErasureStep[] = [
    ...erasureSteps({ discard: async () => undefined }),
    {
      name: 'meanwhile',
      outside: async () => {
        await meanwhile();
        return { counts: noErasureCounts() };
      },
    },
  ];
  const options = { store, owner: 'worker', leaseMs: 30_000, batchSize: 10, discard: async () => undefined, log };
  return runErasureJob({ ...options, maxAttempts: 1, maxPasses: 3 }, job.id, steps).catch(() => undefined);
}

test('mallory sharing and revoking with a person being erased, every pass, cannot hold back the erasure', async (t) => {
  const store = await storeFor(t);
  const mallorys = await Promise.all([conversationOf(store, 'mallory'), conversationOf(store, 'mallory')]);
  const job = await createErasureJob(store, {
    userId: PERSON,
    requestedBy: 'user:root',
    self: false,
    firstStep: 'owned-conversations',
  });
  assert.equal(await erasureInProgress(store, PERSON), true, 'the erasure is open from its request on');
  let floods = 0;
  const ended = await eraseWhile(store, job, async () => {
    floods++;
    // what mallory's loops leave between the job's last removal and its check: a share, a
    // revoked share (its record), an offer of ownership, and a request outcome naming the person
    await setMembership(store, mallorys[0]!, PERSON, 'writer');
    await setMembership(store, mallorys[1]!, PERSON, 'reader');
    await removeMembership(store, mallorys[1]!, PERSON);
    await requestTransfer(store, {
      id: randomUUID(),
      groupId: mallorys[0]!,
      conversationId: mallorys[0]!,
      from: 'mallory',
      to: PERSON,
    });
    await recordRequestOutcomes(store, [
      {
        request_id: randomUUID(),
        kind: 'conversation',
        status: 'stored',
        group_id: mallorys[0]!,
        message_id: null,
        duplicate: false,
        result: { user_id: PERSON },
        error_code: null,
        error_message: null,
      },
    ]);
  });
  const done = await findErasureJob(store, job.id);
  assert.equal(
    done?.status,
    'completed',
    `the job completed: ${JSON.stringify({ ended: ended?.status, reason: done?.reason, error: done?.error })}`,
  );
  assert.equal(done?.passes, 1, 'in one pass: rows others wrote about the person never send it round again');
  assert.equal(floods, 1);
  const { rows } = await store.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM conversation_memberships WHERE user_id = $1)
          + (SELECT count(*) FROM conversation_membership_removals WHERE user_id = $1)
          + (SELECT count(*) FROM conversation_ownership_transfers WHERE to_user_id = $1)
          + (SELECT count(*) FROM request_outcomes WHERE result::text LIKE '%' || $1 || '%') AS n`,
    [PERSON],
  );
  assert.equal(Number(rows[0]!.n), 0, 'what mallory wrote about the person went with the final check');
  const counted = done!.counts['memory-service'].postgres;
  assert.deepEqual(
    [counted['memberships'], counted['membershipRemovals'], counted['transfers'], counted['requestOutcomes']],
    [1, 1, 1, 1],
    'and is on the receipt',
  );
  assert.equal(await erasureInProgress(store, PERSON), false, 'new writes naming the person are allowed again');
});

test("the person's own data stored during every pass fails the job with the reason on it", async (t) => {
  const store = await storeFor(t);
  const job = await createErasureJob(store, {
    userId: PERSON,
    requestedBy: 'user:root',
    self: false,
    firstStep: 'owned-conversations',
  });
  await eraseWhile(store, job, async () => {
    await conversationOf(store, PERSON);
  });
  const done = await findErasureJob(store, job.id);
  assert.equal(done?.status, 'failed');
  assert.equal(done?.passes, 3);
  assert.match(done?.error ?? '', /3 passes each found the person's own data/);
  assert.match(done?.reason ?? '', /conversations/, `the reason names what kept coming: ${done?.reason}`);
});
