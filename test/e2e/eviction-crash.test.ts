import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { adminCall, memoryServiceCall } from '../helpers/memory-service-client.js';
import { residueOf } from '../helpers/residue.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

const CONVERSATIONS = 120;
const ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  // one group per transaction, so the eviction is long enough to be cut in the middle
  EVICTION_BATCH_SIZE: '1',
  // a dead process's job is taken over this soon after its last batch
  EVICTION_LEASE_MS: '1500',
  EVICTION_SWEEP_INTERVAL_MS: '200',
};

interface Job {
  jobId: string;
  status: string;
  progress: number;
  counts: Record<string, number>;
}

test('an eviction cut by SIGKILL of the embedded process group completes after restart, each group removed once', async (t: TestContext) => {
  const server = await embeddedDataDir(t, { prefix: 'memstream-evict-crash-', env: ENV });
  const person = bearer(await userToken('bob'));
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const marker = uniqueName('crashword');

  let proc = await server.start();
  for (let i = 0; i < CONVERSATIONS; i++) {
    const id = (await memoryServiceCall<{ id: string }>(proc.base, 'createConversation', { headers: person, body: {} }))
      .body.id;
    const appended = await memoryServiceCall(proc.base, 'appendConversationMessage', {
      headers: person,
      params: { conversationId: id },
      body: { content: [{ type: 'text', text: `${marker} ${i}` }] },
    });
    assert.equal(appended.status, 201);
    assert.equal(
      (await memoryServiceCall(proc.base, 'deleteConversation', { headers: person, params: { conversationId: id } }))
        .status,
      204,
    );
  }
  // every one of them deleted more than a second ago: a retention of PT1S takes them all
  const aSecondAgo = () => new Date(Date.now() - 1500).toISOString();
  await waitFor('the deletions a second old', async () => {
    const page = await adminCall<{ data: unknown[] }>(proc.base, 'adminListConversations', {
      headers: admin,
      query: { deletedBefore: aSecondAgo(), limit: '1000' },
    });
    return page.body.data.length === CONVERSATIONS;
  });

  const begun = await adminCall<Job>(proc.base, 'adminEvict', {
    headers: admin,
    query: { async: 'true' },
    body: { retentionPeriod: 'PT1S', resourceTypes: ['conversation_groups'], justification: 'crash test' },
  });
  assert.equal(begun.status, 202);
  const jobId = begun.body.jobId;
  const status = (base: string) =>
    adminCall<Job>(base, 'adminGetEvictionJobStatus', { headers: admin, params: { jobId } }).then((r) => r.body);
  const midway = await waitFor(
    'the eviction under way',
    async () => {
      const job = await status(proc.base);
      return job.progress > 0 ? job : undefined;
    },
    60_000,
  );
  await proc.crash();
  t.diagnostic(`killed at ${midway.progress}% (${midway.counts['groups']} groups evicted)`);
  assert.equal(midway.status, 'RUNNING', 'killed before the job ended');
  assert.ok(midway.progress < 100);

  proc = await server.start();
  const ended = await waitFor(
    'the job completed after restart',
    async () => {
      const job = await status(proc.base);
      return job.status === 'COMPLETED' ? job : undefined;
    },
    60_000,
  );
  assert.equal(ended.progress, 100);
  assert.equal(ended.counts['groups'], CONVERSATIONS, 'every group removed, and counted, exactly once');
  assert.equal(ended.counts['messages'], CONVERSATIONS);
  const left = await adminCall<{ data: unknown[] }>(proc.base, 'adminListConversations', {
    headers: admin,
    query: { onlyDeleted: 'true' },
  });
  assert.deepEqual(left.body.data, []);

  // and in the embedded PostgreSQL itself, nothing of them in any table
  const db = await server.database();
  try {
    await waitFor('nothing of them in any table', async () => (await residueOf(db, [marker])).length === 0, 15_000);
  } finally {
    await db.end();
  }
});
