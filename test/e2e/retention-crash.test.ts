import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { distributedEnv } from '../helpers/distributed.js';
import { waitFor } from '../helpers/infra.js';
import { restartServing, startServing } from '../../harness/processes.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import { mainOf } from '../../scripts/processes.js';

const GROUPS = 40;
/** The group whose batch the test holds up: the run has committed the batches before it. */
const HELD = 'rk-020';
const OLD_MESSAGES = 12;
const NEW_MESSAGES = 8;
const EPISODE = 4;
const DAY = 86_400_000;

const ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  RETENTION_MESSAGES: 'P30D',
  RETENTION_MEMORIES: 'P30D',
  RETENTION_INTERVAL_MS: '300',
  // two groups per transaction: twenty batches for the backlog, ten of them before the held group
  RETENTION_BATCH_SIZE: '2',
  // the dead worker's run may be taken over this soon after its last batch
  RETENTION_LEASE_MS: '3000',
};

/**
 * The backlog, as an export: 40 EverMemOS groups, each with 12 messages from 60 days ago (three
 * episodes, a memory each) and 8 from an hour ago (two episodes, a memory each). The import
 * writes the search rows of every message and memory.
 */
function backlog(now: number): string {
  const at = (ms: number) => new Date(ms).toISOString();
  const records: unknown[] = [
    {
      kind: 'header',
      format: 'memstream-export',
      version: 1,
      server: 'test',
      exportedAt: at(now),
      scope: { kind: 'server' },
    },
  ];
  const messages: unknown[] = [];
  const episodes: unknown[] = [];
  const memories: unknown[] = [];
  let row = 0;
  let episodeRow = 0;
  for (let g = 0; g < GROUPS; g++) {
    const id = `rk-${String(g).padStart(3, '0')}`;
    records.push({
      kind: 'conversation',
      id,
      sourceApi: 'evermemos',
      groupId: null,
      nextSeq: OLD_MESSAGES + NEW_MESSAGES,
      title: null,
      metadata: {},
      createdAt: at(now - 60 * DAY),
      updatedAt: at(now - 3_600_000),
      deletedAt: null,
    });
    const timeOf = (seq: number) =>
      seq < OLD_MESSAGES ? now - 60 * DAY + seq * 60_000 : now - 3_600_000 + seq * 60_000;
    for (let seq = 0; seq < OLD_MESSAGES + NEW_MESSAGES; seq++)
      messages.push({
        kind: 'message',
        conversationId: id,
        seq,
        id: ++row,
        messageId: `m${seq}`,
        senderId: seq % 2 ? 'ann' : 'ben',
        senderName: seq % 2 ? 'Ann' : 'Ben',
        role: 'user',
        content: `${seq < OLD_MESSAGES ? 'old' : 'new'} line ${seq} of ${id} about the harbour`,
        createdAt: at(timeOf(seq)),
        storedAt: at(timeOf(seq)),
        referList: [],
        metadata: {},
        sourceApi: 'evermemos',
      });
    for (let start = 0; start < OLD_MESSAGES + NEW_MESSAGES; start += EPISODE) {
      const ids = Array.from({ length: EPISODE }, (_, i) => `m${start + i}`);
      const made = at(timeOf(start + EPISODE - 1) + 5_000);
      const episode = ++episodeRow;
      episodes.push({
        kind: 'episode',
        id: episode,
        conversationId: id,
        startSeq: start,
        endSeq: start + EPISODE - 1,
        messageIds: ids,
        startTime: at(timeOf(start)),
        endTime: at(timeOf(start + EPISODE - 1)),
        closeReason: 'message_cap',
        status: 'extracted',
        version: 1,
        createdAt: made,
        updatedAt: made,
      });
      memories.push({
        kind: 'episodic_memory',
        id: `mem-${id}-${start}`,
        episodeId: episode,
        conversationId: id,
        version: 1,
        userId: null,
        title: 'Ann and Ben: harbour',
        content: `Ann and Ben talked about the harbour (lines ${start} to ${start + EPISODE - 1}).`,
        occurredAt: at(timeOf(start)),
        endedAt: at(timeOf(start + EPISODE - 1)),
        messageIds: ids,
        participants: ['ben', 'ann'],
        extractor: 'offline-extractive',
        supersededAt: null,
        createdAt: made,
      });
    }
  }
  records.push(...messages, ...episodes, ...memories);
  records.push({
    kind: 'end',
    counts: {
      conversation: GROUPS,
      message: messages.length,
      episode: episodes.length,
      episodic_memory: memories.length,
    },
  });
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

/** Every row the run may touch, by key; `old` selects what is older than thirty days. */
type Rows = Record<'messages' | 'memories' | 'episodes' | 'searchRows', string[]>;

async function rows(db: pg.Client, old: boolean): Promise<Rows> {
  const age = old ? `< now() - interval '30 days'` : `>= now() - interval '30 days'`;
  const keys = async (sql: string) => (await db.query<{ k: string }>(sql)).rows.map((r) => r.k).sort();
  return {
    messages: await keys(`SELECT conversation_id || '/' || message_id AS k FROM messages WHERE created_at ${age}`),
    memories: await keys(`SELECT id AS k FROM episodic_memories WHERE created_at ${age}`),
    episodes: await keys(
      `SELECT conversation_id || '/' || start_seq || '/v' || version || '/' || status AS k FROM episodes WHERE end_time ${age}`,
    ),
    searchRows: await keys(`SELECT kind || ':' || item_id AS k FROM search_items WHERE occurred_at ${age}`),
  };
}

const count = async (db: pg.Client, sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);

test('distributed mode: a retention run cut by SIGKILL of the governance worker is taken over once its lease runs out, removes exactly what is older, touches nothing newer, and is audited', async (t: TestContext) => {
  const env = await distributedEnv(t, 'retention-crash', ENV);
  const { base: gateway } = await startServing(t, mainOf('ingest-gateway'), { ...env, LOG_LEVEL: 'warn' });
  const db = new pg.Client({ connectionString: env['DATABASE_URL'] });
  db.on('error', () => undefined); // the database is dropped WITH (FORCE) when the test ends
  await db.connect();
  t.after(() => db.end().catch(() => undefined));

  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const seeded = await fetch(`${gateway}/v1/admin/imports`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    body: backlog(Date.now()),
  });
  assert.equal(seeded.status, 200, await seeded.text());
  const older = await rows(db, true);
  const newer = await rows(db, false);
  assert.equal(older.messages.length, GROUPS * OLD_MESSAGES);
  assert.equal(newer.messages.length, GROUPS * NEW_MESSAGES);
  for (const [kind, keys] of Object.entries({ ...older, ...newer })) assert.ok(keys.length > 0, `seeded ${kind}`);

  // The run will wait on the held group's episode lock, which its batch takes first.
  const holder = new pg.Client({ connectionString: env['DATABASE_URL'] });
  holder.on('error', () => undefined);
  await holder.connect();
  t.after(() => holder.end().catch(() => undefined));
  await holder.query('BEGIN');
  await holder.query(`SELECT pg_advisory_xact_lock(hashtext('episodes:' || $1))`, [HELD]);

  const workerEnv = { ...env, LOG_LEVEL: 'warn' };
  const worker = await startServing(t, mainOf('governance'), workerEnv);
  await waitFor(
    'the run held up at the held group, the groups before it done',
    async () =>
      (await count(
        db,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()
         AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      )) === 1 &&
      (await count(
        db,
        `SELECT count(*) AS n FROM messages WHERE conversation_id < '${HELD}' AND created_at < now() - interval '30 days'`,
      )) === 0,
    90_000,
  );
  const lease = (
    await db.query<{ owner: string; leased_until: Date }>(
      `SELECT owner, leased_until FROM job_leases WHERE name = 'retention'`,
    )
  ).rows[0]!;
  assert.ok(lease.owner, 'the dead run holds the lease');
  await worker.proc.crash();
  await holder.query('ROLLBACK');
  const leftAtKill = await rows(db, true);
  assert.equal(leftAtKill.messages.length, (GROUPS - 20) * OLD_MESSAGES, 'half the backlog is left');
  assert.equal(
    await count(db, `SELECT count(*) AS n FROM audit_log WHERE action = 'retention.run'`),
    0,
    'the cut run wrote no entry',
  );

  await restartServing(t, mainOf('governance'), workerEnv, worker.base);
  const entry = await waitFor(
    'a completed run that removed the rest',
    async () =>
      (
        await db.query<{ status: number; params: Record<string, unknown>; counts: Record<string, number> }>(
          `SELECT status, params, counts FROM audit_log
           WHERE action = 'retention.run' AND actor_kind = 'system' AND counts ? 'messages.messages'`,
        )
      ).rows[0],
    60_000,
  );

  // Exactly what was older is gone; every newer row is still there.
  assert.deepEqual(await rows(db, true), { messages: [], memories: [], episodes: [], searchRows: [] });
  assert.deepEqual(await rows(db, false), newer);
  // The run that completed is the restarted worker's, started once the dead one's lease ran out.
  assert.equal(entry.status, 200);
  assert.equal(entry.params['completed'], true);
  assert.ok(
    Date.parse(String(entry.params['startedAt'])) >= lease.leased_until.getTime(),
    `started ${String(entry.params['startedAt'])}, the dead run's lease ran until ${lease.leased_until.toISOString()}`,
  );
  // Given back as completed: the same statement clears the owner and stamps the completion. The
  // owner itself is not read, since the worker's next run (every 300 ms) may hold the lease again
  // by then (seen in CI on a loaded machine).
  const after = (
    await db.query<{ last_completed_at: Date | null }>(
      `SELECT last_completed_at FROM job_leases WHERE name = 'retention'`,
    )
  ).rows[0]!;
  assert.ok(
    after.last_completed_at !== null &&
      after.last_completed_at.getTime() >= Date.parse(String(entry.params['startedAt'])),
    'the completed run gave its lease back',
  );
  // Its counts are what the cut run had left, each row once: the audit shows the takeover's work.
  assert.equal(entry.counts['messages.messages'], leftAtKill.messages.length);
  assert.equal(entry.counts['messages.episodes'], leftAtKill.episodes.length);
  assert.equal(entry.counts['messages.episodicMemories'], leftAtKill.memories.length);
  const audited = await db.query<{ counts: Record<string, number> }>(
    `SELECT counts FROM audit_log WHERE action = 'retention.run' AND counts ? 'messages.messages'`,
  );
  assert.equal(audited.rows.length, 1, 'one run removed the rest; later runs found nothing');
});
