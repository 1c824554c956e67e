import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase } from '../helpers/infra.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { ADMIN_AUTH_ENV, checkAdminApi } from './admin-contract.js';

test('embedded mode with authentication: admins and auditors (by token role, listed person or client) read every conversation, only admins change, others get 403; every call audited without content', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...ADMIN_AUTH_ENV, DATABASE_URL: await freshDatabase(t) });
  await checkAdminApi(base);
});

test('distributed mode: the same admin API and audit log through the edge (reads on the read API, deletes, restores and evictions on the gateway), writes through Kafka and the converter', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'admin', ADMIN_AUTH_ENV);
  await startServices(t, env, ['converter', 'indexer']);
  const [api] = await startApi(t, env);
  await checkAdminApi(api!);
});
