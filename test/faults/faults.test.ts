import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { PrivateInfra } from './private-infra.js';
import { Pipeline } from './pipeline.js';
import { consumerLag, consumerLagByGroup } from '../helpers/consumer-lag.js';
import { SteadyLoad, type WriteRecord } from './steady-load.js';
import { ArkWatcher } from './ark-watcher.js';
import { faultReport, reportTable, type FaultReport } from './fault-report.js';
import { ReplicatedPostgres } from '../../harness/replicated-postgres.js';
import { ReadLoad } from './read-load.js';
import { primaryKilled } from './primary-killed.js';
import { kafkaFaults } from './kafka-faults.js';

const infra = new PrivateInfra();
const reports: FaultReport[] = [];
const SYNC_TIMEOUT_MS = 3000;
const OUTAGE_MS = Number(process.env['FAULT_OUTAGE_MS'] ?? 20_000);

// A streaming replica of the private PostgreSQL, for the read API of the replica fault.
const REPLICA_PORT = infra.ports.postgres + 1;
const replicas = new ReplicatedPostgres(infra.ports.postgres, [REPLICA_PORT], '/tmp/memstream-faults-infra');

before(async () => {
  await Promise.all((['kafka', 'postgres', 'redis', 'postgres-ha'] as const).map((p) => infra.up(p)));
  await replicas.addReplicas();
});
after(async () => {
  process.stdout.write(`\n${reportTable(reports)}\nKafka brokers' RSS: ${await infra.kafkaRss()}\n`);
  await replicas.removeReplicas().catch(() => undefined);
  await Promise.all(
    (['kafka', 'postgres', 'redis', 'postgres-ha'] as const).map((p) => infra.down(p).catch(() => undefined)),
  );
});

interface Fault {
  readonly name: string;
  /** The pipeline's database: the private single server, or the HA cluster behind its HAProxy. */
  readonly database?: 'postgres' | 'postgres-ha';
  /** Breaks something and repairs it; resolves once the repair is done (the recovery clock starts). */
  inject(pipeline: Pipeline, load: SteadyLoad): Promise<void>;
  /** Settings of the fault's own for every process, given the test's database. */
  readonly env?: (databaseUrl: string) => Record<string, string>;
  /** What the fault must have left behind besides the data, checked once the pipeline converged. */
  check?(records: readonly WriteRecord[], faultAt: number, t: TestContext): Promise<void>;
}

const outage = (part: 'postgres' | 'redis'): Fault => ({
  name: `${part} stopped ${OUTAGE_MS / 1000} s`,
  async inject() {
    await infra.down(part);
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await infra.up(part);
  },
});

const FAULTS: Fault[] = [
  ...kafkaFaults(infra),
  primaryKilled(infra),
  outage('redis'),
  {
    name: 'ingest gateway SIGKILLed with calls in flight',
    async inject(pipeline) {
      await pipeline.kill('ingest-gateway');
      await pipeline.restart('ingest-gateway');
    },
  },
  {
    name: 'extractor, indexer and summarizer SIGKILLed mid-batch',
    async inject(pipeline) {
      await Promise.all((['extractor', 'indexer', 'summarizer'] as const).map((s) => pipeline.kill(s)));
      await Promise.all((['extractor', 'indexer', 'summarizer'] as const).map((s) => pipeline.restart(s)));
    },
  },
  {
    name: `one read replica stopped ${OUTAGE_MS / 1000} s while reads go on`,
    env: (databaseUrl) => ({ DATABASE_REPLICA_URLS: replicas.replicaUrls(databaseUrl).join(',') }),
    async inject(pipeline) {
      const reads = new ReadLoad(pipeline.base('read-api'), 6, SYNC_TIMEOUT_MS + 12_000);
      reads.start();
      await waitFor('reads answered from the replica', async () => (await replicaReads(pipeline)) > 0);
      await replicas.stopReplica(REPLICA_PORT);
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      await replicas.startReplica(REPLICA_PORT);
      const onReplica = await replicaReads(pipeline);
      await waitFor('reads answered from the replica again', async () => (await replicaReads(pipeline)) > onReplica);
      const figures = await reads.stop();
      process.stdout.write(`${JSON.stringify({ fault: this.name, reads: figures })}\n`);
      assert.deepEqual(figures.bad, [], 'every read answered, or refused with 503 and Retry-After');
      assert.equal(figures.hung, 0, 'no read hung');
      assert.ok(figures.ok > 0 && figures.longestGapMs < 10_000, `reads kept answering: ${JSON.stringify(figures)}`);
    },
  },
];

/** Reads the read API answered from a replica so far (its own counter). */
async function replicaReads(pipeline: Pipeline): Promise<number> {
  const metrics = await (await fetch(`${pipeline.base('read-api')}/metrics`)).text();
  return [...metrics.matchAll(/^memstream_replica_reads_total\{[^}]*outcome="replica"[^}]*\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

for (const fault of FAULTS) {
  test(`under steady load, ${fault.name}: every acknowledged write is stored once, gap-free, indexed, and no consumer is stuck`, async (t: TestContext) => {
    const prefix = `${uniqueName('faults')}.`;
    const databaseUrl = await infra.freshDatabase(uniqueName('faults'), fault.database);
    const pipeline = new Pipeline(t, {
      KAFKA_BROKERS: infra.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '4',
      KAFKA_SESSION_TIMEOUT_MS: '10000',
      DATABASE_URL: databaseUrl,
      REDIS_URL: infra.redisUrl,
      REQUEST_SYNC_TIMEOUT_MS: String(SYNC_TIMEOUT_MS),
      EMBEDDING_PROVIDER: 'hash',
      EPISODE_MAX_MESSAGES: '20',
      SUMMARY_SWEEP_INTERVAL_MS: '1000',
      // live streams read what the live channel lost once per heartbeat
      SSE_HEARTBEAT_MS: '1000',
      EXTRACTION_SWEEP_INTERVAL_MS: '1000',
      ...fault.env?.(databaseUrl),
    });
    await pipeline.start();
    const load = new SteadyLoad({
      gateway: pipeline.base('ingest-gateway'),
      brokers: infra.kafkaBrokers,
      topic: `${prefix}ingest.group-chat.v1`,
      groups: 6,
      clientsPerKind: 2,
      answerWithinMs: SYNC_TIMEOUT_MS + 12_000,
    });
    await load.start();
    const ark = new ArkWatcher(pipeline.base('ingest-gateway'), pipeline.base('read-api'), 'ark-live');
    await ark.start();
    t.after(() => ark.close());
    await new Promise((r) => setTimeout(r, 8000));
    const faultAt = Date.now();
    await fault.inject(pipeline, load);
    const repairedAt = Date.now();
    await new Promise((r) => setTimeout(r, 10_000));
    await Promise.all([load.stop(), ark.stop()]);

    const db = new pg.Client({ connectionString: databaseUrl });
    db.on('error', () => undefined);
    await db.connect();
    t.after(() => db.end());
    const acked = load.acked();
    const ackedKeys = new Set(acked.map((r) => `${r.groupId}|${r.messageId}`));
    const storedOf = async () => {
      const { rows } = await db.query<{ k: string; n: string }>(
        `SELECT conversation_id || '|' || message_id AS k, count(*) AS n FROM messages GROUP BY 1`,
      );
      return rows;
    };
    // Converged: everything acknowledged is stored, the index holds every message, no consumer lags.
    await waitFor(
      'the pipeline converged',
      async () => {
        const stored = new Set((await storedOf()).map((r) => r.k));
        if ([...ackedKeys].some((k) => !stored.has(k))) return undefined;
        const indexed = Number(
          (await db.query<{ n: string }>(`SELECT count(*) AS n FROM search_vectors WHERE kind = 'message'`)).rows[0]!.n,
        );
        if (indexed !== stored.size) return undefined;
        return (await consumerLag(infra.kafkaBrokers, prefix)) === 0 ? true : undefined;
      },
      180_000,
    ).catch(async (err: unknown) => {
      const stored = new Set((await storedOf()).map((r) => r.k));
      const missing = [...ackedKeys].filter((k) => !stored.has(k));
      const lag = JSON.stringify(await consumerLagByGroup(infra.kafkaBrokers, prefix).catch(() => ({})));
      const indexed = (await db.query<{ n: string }>(`SELECT count(*) AS n FROM search_vectors WHERE kind = 'message'`))
        .rows[0]!.n;
      process.stdout.write(`${JSON.stringify(pipeline.complaints(), null, 1)}\n`);
      const byKind = Object.fromEntries(
        ['held', 'async', 'direct'].map((k) => [
          k,
          acked.filter((r) => r.kind === k && missing.includes(`${r.groupId}|${r.messageId}`)).length,
        ]),
      );
      throw new Error(
        `${String(err)}: ${missing.length} acknowledged writes missing ${JSON.stringify(byKind)} (${missing.slice(0, 5).join(', ')}), ${stored.size} stored and ${indexed} indexed, consumer lag ${lag}`,
      );
    });
    const convergedAt = Date.now();
    // The live reader has every stored message of its session, in order, once.
    const arkStored = async () =>
      (
        await db.query<{ content: string }>(
          `SELECT content FROM messages WHERE conversation_id = 'ark-live' ORDER BY seq`,
        )
      ).rows.map((r) => r.content);
    await waitFor(
      'the live ARK reader caught up',
      async () => (ark.received().length >= (await arkStored()).length ? true : undefined),
      30_000,
    ).catch(() => undefined);
    assert.deepEqual(
      ark.received(),
      await arkStored(),
      'the SSE reader saw every stored message of its session, in order, once',
    );

    const rows = await storedOf();
    const unacknowledged = rows.filter((r) => !ackedKeys.has(r.k) && !r.k.startsWith('ark-live|'));
    t.diagnostic(
      `stored without an acknowledgement (refused, cut or in flight when the load stopped): ${unacknowledged.length}, e.g. ${unacknowledged
        .slice(0, 3)
        .map((r) => r.k)
        .join(', ')}`,
    );
    const duplicates = rows.filter((r) => Number(r.n) > 1).length;
    const gaps = await db.query(
      `SELECT conversation_id FROM messages GROUP BY 1 HAVING count(*) <> max(seq) + 1 OR min(seq) <> 0`,
    );
    const searchDuplicates = await db.query(`SELECT kind, item_id FROM search_items GROUP BY 1, 2 HAVING count(*) > 1`);
    // Memories made while consumers died and came back: one current memory per episode and person, one summary per window.
    const memoryDuplicates = await db.query(
      `SELECT episode_id FROM episodic_memories WHERE superseded_at IS NULL GROUP BY episode_id, user_id HAVING count(*) > 1`,
    );
    const summaryDuplicates = await db.query(
      `SELECT conversation_id FROM memory WHERE status = 'completed' GROUP BY conversation_id, start_sequence, end_sequence HAVING count(*) > 1`,
    );
    const overlapping = await db.query(
      `SELECT conversation_id FROM (SELECT conversation_id, unnest(message_ids) AS m FROM episodes) x GROUP BY 1, m HAVING count(*) > 1`,
    );
    const report = faultReport(fault.name, load.records, {
      faultAt,
      repairedAt,
      convergedAt,
      stored: rows.length,
      duplicates,
    });
    reports.push(report);
    t.diagnostic(JSON.stringify(report));

    assert.equal(duplicates, 0, 'no message stored twice');
    assert.equal(gaps.rowCount, 0, 'every conversation numbered 0..n-1');
    assert.equal(searchDuplicates.rowCount, 0, 'every search row once');
    assert.equal(memoryDuplicates.rowCount, 0, 'every episodic memory once');
    assert.equal(summaryDuplicates.rowCount, 0, 'every summary window once');
    assert.equal(overlapping.rowCount, 0, 'no message in two episodes');
    assert.equal(report.serverErrors, 0, `no 5xx but 503: ${JSON.stringify(unexpected(load.records))}`);
    assert.equal(report.hung, 0, 'no call hung past its timeout');
    assert.ok(report.recoveryS >= 0 && report.recoveryS <= 30, 'writes acknowledged again within 30 s of the repair');
    const refusedBadly = load.records.filter(
      (r) => r.outcome === 'refused' && !(r.status === 503 && r.retryAfter && r.errorShaped),
    );
    assert.deepEqual(
      refusedBadly.map((r) => `${r.kind} ${r.status}`),
      [],
      'every refusal a 503 with Retry-After in the EverMemOS envelope',
    );
    assert.ok(report.acknowledged > 0);
    await fault.check?.(load.records, faultAt, t);
  });
}

function unexpected(records: readonly WriteRecord[]): string[] {
  return records
    .filter((r) => (r.status ?? 0) >= 500 && r.status !== 503)
    .slice(0, 5)
    .map((r) => `${r.kind} ${r.status}`);
}
