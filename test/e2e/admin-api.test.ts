import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, waitFor } from '../helpers/infra.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { adminCall, memoryServiceCall } from '../helpers/memory-service-client.js';
import { restartServing, startServing } from '../../harness/processes.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { mainOf } from '../../scripts/processes.js';
import { ADMIN_AUTH_ENV, checkAdminApi } from './admin-contract.js';

test('embedded mode with authentication: admins and auditors (by token role, listed person or client) read every conversation, only admins change, others get 403; every call audited without content', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...ADMIN_AUTH_ENV, DATABASE_URL: await freshDatabase(t) });
  await checkAdminApi(base);
});

test('distributed mode: the same admin API and audit log through the edge (reads on the read API, deletes, restores and evictions on the gateway), writes through Kafka and the converter', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'admin', ADMIN_AUTH_ENV);
  await startServices(t, env, ['converter', 'governance', 'indexer']);
  const [api] = await startApi(t, env);
  await checkAdminApi(api!);
});

test("distributed mode: an admin's delete and restore are published and applied by the converter like every change: with the converter stopped they wait and change nothing, and it applies them once it runs", async (t: TestContext) => {
  // a short wait, so a change the converter cannot apply is answered 202 soon
  const env = await pipelineEnv(t, 'adminpipe', { ...ADMIN_AUTH_ENV, REQUEST_SYNC_TIMEOUT_MS: '1500' });
  const converter = await startServing(t, mainOf('converter'), env);
  const [api] = await startApi(t, env);
  const bob = bearer(await userToken('bob'));
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const created = await memoryServiceCall<{ id: string }>(api!, 'createConversation', {
    headers: bob,
    body: { title: 'held' },
  });
  assert.equal(created.status, 201);
  const id = created.body.id;
  const deletedAt = async () => {
    const got = await adminCall<{ deletedAt?: string | null }>(api!, 'adminGetConversation', {
      headers: admin,
      params: { id },
      query: { includeDeleted: 'true' },
    });
    assert.equal(got.status, 200);
    return got.body.deletedAt ?? null;
  };

  converter.proc.child.kill('SIGTERM');
  await converter.proc.exited;
  const deleting = await adminCall<{ requestId?: string }>(api!, 'adminDeleteConversation', {
    headers: admin,
    params: { id },
    body: { justification: 'pipeline check' },
  });
  assert.equal(deleting.status, 202, 'the deletion waits for the converter');
  assert.equal(typeof deleting.body.requestId, 'string');
  assert.equal(await deletedAt(), null, 'nothing is changed before the converter applies it');

  await restartServing(t, mainOf('converter'), env, converter.base);
  await waitFor('the deletion applied', async () => ((await deletedAt()) !== null ? true : undefined), 60_000);
  const restored = await adminCall(api!, 'adminRestoreConversation', {
    headers: admin,
    params: { id },
    body: { justification: 'pipeline check' },
  });
  assert.equal(restored.status, 200, JSON.stringify(restored.body));
  assert.equal(await deletedAt(), null);
  // Both reached the converter: each has its outcome recorded as every applied change does.
  const db = new pg.Client({ connectionString: env['DATABASE_URL'] });
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM request_outcomes WHERE group_id = $1 AND status = 'stored' AND result ? 'conversations'`,
    [id],
  );
  assert.equal(Number(rows[0]!.n), 2);
});
