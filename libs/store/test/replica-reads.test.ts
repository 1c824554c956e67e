import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createLogger } from '@memstream/logging';
import { PgStore, ReplicaReads, type ReadOutcome } from '@memstream/store';
import { ReplicatedPostgres } from '../../../harness/replicated-postgres.js';
import { startRoundRobinProxy } from '../../../harness/round-robin-proxy.js';
import { waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });
// Ports and a folder of this file's own (the e2e test on replicas has others), below the
// ephemeral range (32768-60999 here), where a client connection's local port can hold one.
const postgres = new ReplicatedPostgres(24442, [24443, 24444], '/tmp/memstream-replica-store');
let database = '';

before(async () => {
  await postgres.start();
  database = await postgres.freshDatabase();
});
after(() => postgres.stop());

function open(t: TestContext, waitMs: number, replicaUrls = postgres.replicaUrls(database)) {
  const pool = { maxConnections: 4, statementTimeoutMs: 10_000, log };
  const outcomes: ReadOutcome[] = [];
  const store = new ReplicaReads({
    primary: new PgStore({ connectionString: database, ...pool }),
    replicas: replicaUrls.map((url) => ({
      name: new URL(url).port,
      store: new PgStore({ connectionString: url, ...pool, connectTimeoutMs: 2000 }),
    })),
    waitMs,
    retryMs: 100,
    log,
    onRead: (outcome) => outcomes.push(outcome),
  });
  t.after(() => store.close());
  return { store, outcomes };
}

/** Pauses WAL replay on the replicas of `urls` (all unless given) until the returned function resumes it. */
async function pauseReplay(t: TestContext, urls = postgres.replicaUrls(database)): Promise<() => Promise<void>> {
  const clients = await Promise.all(
    urls.map(async (url) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query('SELECT pg_wal_replay_pause()');
      return c;
    }),
  );
  const resume = async () => {
    for (const c of clients.splice(0)) {
      await c.query('SELECT pg_wal_replay_resume()');
      await c.end();
    }
  };
  t.after(resume);
  return resume;
}

test('a replica that has not replayed a committed change never answers: the read waits for it, or reads the primary', async (t) => {
  const { store, outcomes } = open(t, 200);
  await store.exec('CREATE TABLE grants (who text PRIMARY KEY)');
  await store.query("INSERT INTO grants VALUES ('bob')");
  await waitFor('the replicas have the grant', async () => {
    outcomes.length = 0;
    const { rows } = await store.query<{ who: string }>('SELECT who FROM grants');
    return rows.length === 1 && outcomes[0] === 'replica';
  });

  const resume = await pauseReplay(t);
  await store.query("DELETE FROM grants WHERE who = 'bob'");
  outcomes.length = 0;
  const revoked = await store.query('SELECT who FROM grants');
  assert.equal(
    revoked.rows.length,
    0,
    'a revoked grant is not read from a replica that has not replayed the revocation',
  );
  assert.deepEqual(outcomes, ['primary_lagging']);

  // A replica that replays within the wait answers itself.
  await store.query("INSERT INTO grants VALUES ('carol')");
  // A store of its own: the first one leaves its lagging replicas out for a while.
  const { store: patient, outcomes: patientOutcomes } = open(t, 30_000);
  const read = patient.query<{ who: string }>('SELECT who FROM grants');
  await resume();
  assert.deepEqual((await read).rows, [{ who: 'carol' }]);
  assert.deepEqual(patientOutcomes, ['replica']);
});

test('a stopped replica: every read is still answered, from the other replica or the primary', async (t) => {
  const { store, outcomes } = open(t, 1000);
  await store.exec('CREATE TABLE notes (n int)');
  await store.query('INSERT INTO notes VALUES (1)');
  const [, second] = postgres.replicaPorts;
  await postgres.stopReplica(second!);
  t.after(() => postgres.startReplica(second!));
  for (let i = 0; i < 20; i++) {
    await store.query('INSERT INTO notes VALUES ($1)', [i + 2]);
    const { rows } = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM notes');
    assert.equal(rows[0]!.n, i + 2);
  }
  assert.ok(outcomes.includes('replica'), 'the replica still up served reads');
  assert.ok(outcomes.includes('primary_unavailable'), 'the stopped one handed its read to the primary');
  const lag = await store.lag();
  assert.deepEqual(
    lag.map((l) => l.up),
    [true, false],
  );
});

test('one address over a replica that replays and one that is paused: no read misses a revocation', async (t) => {
  const replicaUrls = postgres.replicaUrls(database);
  // The replica that keeps replaying takes the proxy's first connection, the paused one the second, and so on.
  const port = await startRoundRobinProxy(t, postgres.replicaPorts);
  const proxied = new URL(database);
  proxied.port = String(port);
  const { store, outcomes } = open(t, 200, [proxied.href]);
  await store.exec('CREATE TABLE access (who text PRIMARY KEY)');
  await store.query("INSERT INTO access VALUES ('bob')");
  const [position] = await ask(database, 'SELECT pg_current_wal_flush_lsn()::text AS v');
  await waitFor('both replicas have the grant', async () => {
    for (const url of replicaUrls) {
      const [replayed] = await ask(url, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS v', [position]);
      if (!replayed) return false;
    }
    return true;
  });

  const resume = await pauseReplay(t, replicaUrls.slice(1));
  await store.query("DELETE FROM access WHERE who = 'bob'");
  const read = () => store.query<{ who: string }>('SELECT who FROM access');
  outcomes.length = 0;
  // 40 at once spread over the pool's connections, then 10 rounds of 4 (the paused replica gets
  // its turns), then 10 one after another.
  const reads = await Promise.all(Array.from({ length: 40 }, read));
  for (let round = 0; round < 10; round++) reads.push(...(await Promise.all(Array.from({ length: 4 }, read))));
  for (let i = 0; i < 10; i++) reads.push(await read());
  assert.equal(
    reads.filter((r) => r.rows.length > 0).length,
    0,
    `reads that still saw the revoked grant (of ${reads.length})`,
  );
  assert.ok(outcomes.includes('replica'), 'the replica that replays served reads');
  assert.ok(outcomes.includes('primary_lagging'), "the paused replica's reads went to the primary");
  await resume();
});

/** The first column of each row `sql` returns on the server of `url`, asked directly. */
async function ask(url: string, sql: string, params: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: unknown }>(sql, params)).rows.map((r) => r.v);
  } finally {
    await client.end();
  }
}
