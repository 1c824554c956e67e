import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { pipelineEnv, startServices } from '../helpers/distributed.js';
import { ReplicatedPostgres } from '../../harness/replicated-postgres.js';
import { startRoundRobinProxy } from '../../harness/round-robin-proxy.js';
import { waitFor } from '../helpers/infra.js';
import { AUTH_ENV } from './client/callers.js';
import { checkReplicaReads } from './replica-reads-contract.js';

// Ports and a folder of this test's own: its primary and replicas serve nothing else. Below the
// ephemeral range (32768-60999 here), where a client connection's local port can hold one.
const postgres = new ReplicatedPostgres(24432, [24433, 24434], '/tmp/memstream-replica-reads');

test('two read APIs, on a replica and on one address spread over two: every acknowledged write, grant, revocation and delete is what the first read and search see', async (t: TestContext) => {
  await postgres.start(t);
  const database = await postgres.freshDatabase();
  const [replicaA, replicaB] = postgres.replicaUrls(database);
  // One address spread over both replicas, as a load-balanced read-only Service is (CloudNativePG's
  // -ro): each new connection lands on the next replica, so a read's fence and statement must share one.
  const spread = new URL(database);
  spread.port = String(await startRoundRobinProxy(t, postgres.replicaPorts));
  const env = await pipelineEnv(t, 'replica_reads', {
    ...AUTH_ENV,
    // Long enough that a write on this shared machine is answered 200 once stored, not 202.
    REQUEST_SYNC_TIMEOUT_MS: '30000',
    DATABASE_URL: database,
  });
  // One read API on a replica, the other on the spread address: the lanes' reads alternate between them.
  const [gateway, , , first, second] = await startServices(
    t,
    env,
    ['ingest-gateway', 'converter', 'indexer', 'read-api', 'read-api'],
    [
      {},
      {},
      {},
      { DATABASE_REPLICA_URLS: replicaA! },
      // A lagging replica leaves the whole address out for the retry period: a short one (and a
      // short wait) brings the address back often, so in this short run its replica that replays
      // keeps serving reads between the lagging one's turns.
      { DATABASE_REPLICA_URLS: spread.href, DATABASE_REPLICA_WAIT_MS: '100', DATABASE_REPLICA_RETRY_MS: '500' },
    ],
  );

  // The second replica, reached only through the spread address, stops replaying once it has the
  // schema: one replica behind the address falling behind, as one replaying a long vacuum does.
  // Its reads must go to the primary; without the fence they would miss every change from here on.
  await pauseReplayOnceCaughtUp(database, replicaB!);

  const { misses, checks } = await checkReplicaReads(gateway!, [first!, second!]);
  assert.deepEqual(
    misses,
    [],
    `acknowledged changes the first read after the answer did not see (of ${checks} checks)`,
  );

  // The reads did run on the replicas, the spread address's lagging one sent reads to the primary,
  // and each read API says how far behind its replica is.
  for (const [base, replica, outcomes] of [
    [first!, new URL(replicaA!).host, ['replica']],
    [second!, spread.host, ['replica', 'primary_lagging']],
  ] as const) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    for (const outcome of outcomes) {
      const reads = new RegExp(`^memstream_replica_reads_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`, 'gm');
      const counts = [...metrics.matchAll(reads)].map((m) => Number(m[1]));
      assert.ok(counts.length === 1 && counts[0]! > 0, `${base}: no read with outcome ${outcome}:\n${metrics}`);
    }
    assert.match(
      metrics,
      new RegExp(`^memstream_replica_lag_bytes\\{replica="${replica.replaceAll('.', '\\.')}"\\} \\d+`, 'm'),
    );
  }
});

/** Waits until the replica of `replicaUrl` has replayed what the primary of `primaryUrl` flushed, then pauses its replay. */
async function pauseReplayOnceCaughtUp(primaryUrl: string, replicaUrl: string): Promise<void> {
  const ask = async (url: string, sql: string, params: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ v: unknown }>(sql, params)).rows[0]!.v;
    } finally {
      await client.end();
    }
  };
  const position = await ask(primaryUrl, 'SELECT pg_current_wal_flush_lsn()::text AS v');
  await waitFor('the replica replayed the schema', () =>
    ask(replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS v', [position]).then((v) => v === true),
  );
  // server-wide, not the session's: it lasts until the replica is removed with the test's folder
  await ask(replicaUrl, 'SELECT pg_wal_replay_pause()');
}
