import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { pipelineEnv, startServices } from '../helpers/distributed.js';
import { ReplicatedPostgres } from '../../harness/replicated-postgres.js';
import { AUTH_ENV } from './client/callers.js';
import { checkReplicaReads } from './replica-reads-contract.js';

// Ports and a folder of this test's own: its primary and replicas serve nothing else.
const postgres = new ReplicatedPostgres(36432, [36433, 36434], '/tmp/memstream-replica-reads');

test('two read APIs on streaming replicas: every acknowledged write, grant, revocation and delete is what the first read and search see', async (t: TestContext) => {
  await postgres.start(t);
  const database = await postgres.freshDatabase();
  const [replicaA, replicaB] = postgres.replicaUrls(database);
  const env = await pipelineEnv(t, 'replica_reads', {
    ...AUTH_ENV,
    // Long enough that a write on this shared machine is answered 200 once stored, not 202.
    REQUEST_SYNC_TIMEOUT_MS: '30000',
    DATABASE_URL: database,
  });
  // Each read API on a replica of its own, so the lanes' reads alternate between the two replicas.
  const [gateway, , , first, second] = await startServices(
    t,
    env,
    ['ingest-gateway', 'converter', 'indexer', 'read-api', 'read-api'],
    [{}, {}, {}, { DATABASE_REPLICA_URLS: replicaA! }, { DATABASE_REPLICA_URLS: replicaB! }],
  );

  const { misses, checks } = await checkReplicaReads(gateway!, [first!, second!]);
  assert.deepEqual(
    misses,
    [],
    `acknowledged changes the first read after the answer did not see (of ${checks} checks)`,
  );

  // The reads did run on the replicas, and each read API says how far behind its replica is.
  for (const base of [first!, second!]) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const onReplica = [...metrics.matchAll(/^memstream_replica_reads_total\{[^}]*outcome="replica"[^}]*\} (\d+)/gm)];
    assert.ok(onReplica.length === 1 && Number(onReplica[0]![1]) > 0, `${base} read from its replica:\n${metrics}`);
    assert.match(metrics, /^memstream_replica_lag_bytes\{replica="127\.0\.0\.1:3643[34]"\} \d+/m);
  }
});
