import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLogger } from '@memstream/logging';
import {
  PgStore,
  claimEvictionJob,
  createEvictionJob,
  evictBatch,
  findEvictionJob,
  migrate,
  purgeConversationGroups,
  removeMembership,
  restoreConversationGroup,
  setMembership,
  standingOf,
  type Store,
} from '@memstream/store';
import { runEvictionJob, sweepEvictionJobs, type EvictionRunnerOptions } from '@memstream/governance';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';
import { residueOf, tableCount } from '../../../test/helpers/residue.js';
import { seedGroup } from '../../../test/helpers/eviction-fixtures.js';

const log = createLogger({ service: 'test', level: 'silent' });
const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS);

async function freshStore(t: TestContext): Promise<Store> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 8,
    statementTimeoutMs: 30_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  return store;
}

function runner(store: Store, over: Partial<EvictionRunnerOptions> = {}): EvictionRunnerOptions {
  return {
    store,
    owner: `test-${randomUUID()}`,
    leaseMs: 30_000,
    batchSize: 2,
    maxAttempts: 3,
    discard: async () => undefined,
    log,
    ...over,
  };
}

async function job(store: Store, cutoff: Date) {
  return createEvictionJob(store, {
    retentionPeriod: 'P90D',
    cutoff,
    resourceTypes: ['conversation_groups'],
    requestedBy: 'user:admin',
  });
}

test('eviction leaves nothing of a group soft-deleted before the cutoff in any table, and keeps the others whole', async (t) => {
  const store = await freshStore(t);
  await seedGroup(store, { group: 'old', marker: 'quokkaold', deletedAt: daysAgo(100) });
  await seedGroup(store, { group: 'recent', marker: 'quokkarecent', deletedAt: daysAgo(10) });
  await seedGroup(store, { group: 'live', marker: 'quokkalive', deletedAt: null });
  const before = await residueOf(store, ['quokkarecent', 'quokkalive']);

  const discarded: string[] = [];
  const created = await job(store, daysAgo(90));
  const ended = await runEvictionJob(
    runner(store, { discard: async (ids) => void discarded.push(...ids) }),
    created.id,
  );

  assert.equal(ended?.status, 'completed');
  assert.equal(ended?.done, 1);
  assert.equal(ended?.counts.groups, 1);
  assert.equal(ended?.counts.conversations, 2);
  assert.equal(ended?.counts.messages, 3);
  assert.deepEqual(ended?.streams_to_discard, []);
  assert.deepEqual(discarded.sort(), ['old', 'old-fork']);
  t.diagnostic(`scanned ${await tableCount(store)} tables`);
  const left = await residueOf(store, ['quokkaold', 'old-fork'], ['eviction_jobs']);
  assert.deepEqual(left, [], 'nothing of the evicted group is left');
  const { rows } = await store.query(`SELECT 1 FROM conversations WHERE id = 'old'`);
  assert.equal(rows.length, 0);
  assert.deepEqual(await residueOf(store, ['quokkarecent', 'quokkalive']), before, 'the others are untouched');
});

test('three evictions at once remove every group exactly once between them', async (t) => {
  const store = await freshStore(t);
  for (let i = 0; i < 12; i++) await seedGroup(store, { group: `g${i}`, marker: `zebra${i}`, deletedAt: daysAgo(100) });
  const jobs = await Promise.all([1, 2, 3].map(() => job(store, daysAgo(90))));
  const ended = await Promise.all(jobs.map((j) => runEvictionJob(runner(store), j.id)));
  assert.deepEqual(
    ended.map((e) => e?.status),
    ['completed', 'completed', 'completed'],
  );
  const groups = ended.reduce((sum, e) => sum + (e?.counts.groups ?? 0), 0);
  const messages = ended.reduce((sum, e) => sum + (e?.counts.messages ?? 0), 0);
  assert.equal(groups, 12, 'each group counted by exactly one job');
  assert.equal(messages, 36);
  const { rows } = await store.query<{ n: string }>('SELECT count(*) AS n FROM conversations');
  assert.equal(Number(rows[0]!.n), 0);
});

test('a job whose process died mid-way is taken over after its lease and completed, nothing counted twice', async (t) => {
  const store = await freshStore(t);
  for (let i = 0; i < 5; i++) await seedGroup(store, { group: `c${i}`, marker: `crash${i}`, deletedAt: daysAgo(100) });
  const created = await job(store, daysAgo(90));
  // the first process takes the job, evicts one batch, and dies (it never renews its lease again)
  const dead = `dead-${randomUUID()}`;
  const claimed = await claimEvictionJob(store, { owner: dead, leaseMs: 300, jobId: created.id });
  assert.equal(claimed?.total, 5);
  const step = await evictBatch(store, { jobId: created.id, owner: dead, leaseMs: 300, batchSize: 2 });
  assert.equal(step.purged, 2);
  // while the lease holds, nobody else takes the job
  assert.equal(await claimEvictionJob(store, { owner: 'early', leaseMs: 1000 }), undefined);

  // the sweep finds it once the lease ran out
  const ended = await waitFor('the job completed by the sweep', async () => {
    await sweepEvictionJobs(runner(store));
    const j = await findEvictionJob(store, created.id);
    return j?.status === 'completed' ? j : undefined;
  });
  assert.equal(ended.attempts, 2);
  assert.equal(ended.done, 5);
  assert.equal(ended.counts.groups, 5, "the dead process's batch counted once");
  assert.equal(ended.counts.messages, 15);
  // the dead process, were it to wake, may not write to the job any more
  const late = await evictBatch(store, { jobId: created.id, owner: dead, leaseMs: 300, batchSize: 2 });
  assert.equal(late.held, false);
  assert.deepEqual(await residueOf(store, ['crash0', 'crash4'], ['eviction_jobs']), []);
});

test('a group restored after the job was made, deleted after its cutoff, or written to since its deletion, is kept', async (t) => {
  const store = await freshStore(t);
  await seedGroup(store, { group: 'back', marker: 'restoredword', deletedAt: daysAgo(100) });
  await seedGroup(store, { group: 'late', marker: 'lateword', deletedAt: daysAgo(100) });
  await seedGroup(store, { group: 'again', marker: 'againword', deletedAt: daysAgo(100) });
  await seedGroup(store, { group: 'gone', marker: 'goneword', deletedAt: daysAgo(100) });
  const created = await job(store, daysAgo(90));
  assert.equal(await restoreConversationGroup(store, 'back'), 2);
  await store.query(`UPDATE conversations SET deleted_at = now() WHERE id = 'late-fork'`);
  // a family without soft deletion of its own (EverMemOS) stores what is sent to a deleted group
  await store.query(
    `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
     VALUES ('again-fork', 5, 'new', 'u1', 'U', 'user', 'sent after the deletion', now(), 'evermemos', 'again')`,
  );
  const ended = await runEvictionJob(runner(store), created.id);
  assert.equal(ended?.counts.groups, 1, 'only the group nobody touched since');
  assert.deepEqual(await residueOf(store, ['goneword']), []);
  for (const kept of ['restoredword', 'lateword', 'againword'])
    assert.equal((await residueOf(store, [kept])).length > 0, true, kept);
});

test('purging without a cutoff (an erasure) removes a live group too, and a second purge finds nothing', async (t) => {
  const store = await freshStore(t);
  await seedGroup(store, { group: 'alive', marker: 'erasemeword', deletedAt: null });
  const first = await store.transaction((tx) => purgeConversationGroups(tx, ['alive']));
  assert.equal(first.counts.groups, 1);
  assert.equal(first.counts.summaries, 2);
  assert.equal(first.counts.kaosEvents, 1);
  assert.equal(first.counts.transfers, 1);
  const again = await store.transaction((tx) => purgeConversationGroups(tx, ['alive']));
  assert.equal(again.counts.conversations, 0);
  assert.deepEqual(await residueOf(store, ['erasemeword', 'alive']), []);
});

test('a removed membership grants nothing, is kept as a record, and is evicted once removed before the cutoff, in batches', async (t) => {
  const store = await freshStore(t);
  await seedGroup(store, { group: 'kept', marker: 'keptword', deletedAt: null });
  for (const user of ['old1', 'old2', 'old3', 'recent']) await setMembership(store, 'kept', user, 'reader');
  for (const user of ['old1', 'old2', 'old3', 'recent'])
    assert.equal(await removeMembership(store, 'kept', user), true);
  // gone from access at once: the record is no membership
  assert.equal(await standingOf(store, { kind: 'user', id: 'old1' }, 'kept'), undefined);
  await store.query(
    `UPDATE conversation_membership_removals SET removed_at = now() - interval '100 days' WHERE user_id LIKE 'old%'`,
  );
  const created = await createEvictionJob(store, {
    retentionPeriod: 'P90D',
    cutoff: daysAgo(90),
    resourceTypes: ['conversation_memberships'],
    requestedBy: 'user:admin',
  });
  const ended = await runEvictionJob(runner(store), created.id);
  assert.equal(ended?.status, 'completed');
  assert.equal(ended?.total, 3);
  assert.equal(ended?.counts.membershipRemovals, 3, 'three removals, over two batches of two');
  assert.equal(ended?.counts.groups, 0, 'the group itself is not evicted');
  const { rows } = await store.query<{ user_id: string }>('SELECT user_id FROM conversation_membership_removals');
  assert.deepEqual(
    rows.map((r) => r.user_id),
    ['recent'],
  );
  // a purged group takes its removals with it
  const purged = await purgeConversationGroups(store, ['kept']);
  assert.equal(purged.counts.membershipRemovals, 1);
});
