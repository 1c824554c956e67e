import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import type { PgStore, Store } from '@memstream/store';
import { runRetention, type RetentionRunnerOptions } from '@memstream/governance';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

const log = createLogger({ service: 'test', level: 'silent' });

async function storeWithOldMessages(t: TestContext, conversations: number): Promise<PgStore> {
  const store = await migratedStore(t);
  for (let c = 0; c < conversations; c++) {
    await store.query(
      `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ($1, 'evermemos', 2, $1)`,
      [`g${c}`],
    );
    // one message 40 days old, one of today
    await store.query(
      `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
       VALUES ($1, 0, 'old', 'u', 'u', 'user', 'said long ago', now() - interval '40 days', 'evermemos', $1),
              ($1, 1, 'new', 'u', 'u', 'user', 'said today', now(), 'evermemos', $1)`,
      [`g${c}`],
    );
  }
  return store;
}

function options(store: Store, owner: string, extra: Partial<RetentionRunnerOptions> = {}): RetentionRunnerOptions {
  return {
    store,
    periods: { messages: 'P30D' },
    owner,
    leaseMs: 30_000,
    minGapMs: 0,
    batchSize: 10,
    discard: async () => undefined,
    log,
    ...extra,
  };
}

async function messageIds(store: Store): Promise<string[]> {
  const { rows } = await store.query<{ k: string }>(
    `SELECT conversation_id || '/' || message_id AS k FROM messages ORDER BY 1`,
  );
  return rows.map((r) => r.k);
}

test('two replicas waking together make one run; a lease whose holder died is taken over; a run just completed is not repeated', async (t) => {
  const store = await storeWithOldMessages(t, 3);
  // a replica that died mid-run: its lease ran out a second ago
  await store.query(
    `INSERT INTO job_leases (name, owner, leased_until) VALUES ('retention', 'dead', clock_timestamp() - interval '1 second')`,
  );
  // With a gap, the later of the two cannot run again after the first completes, however the two
  // interleave on a loaded machine: one run, whichever of them got the lease.
  const replica = (owner: string) => runRetention(options(store, owner, { minGapMs: 60_000 }));
  const runs = await Promise.all([replica('a'), replica('b')]);
  assert.equal(runs.filter((r) => r !== undefined).length, 1, 'one of the two ran');
  const run = runs.find((r) => r !== undefined)!;
  assert.equal(run.byKind.messages.messages, 3);
  assert.deepEqual(await messageIds(store), ['g0/new', 'g1/new', 'g2/new']);
  assert.equal(
    await runRetention(options(store, 'c', { minGapMs: 60_000 })),
    undefined,
    'a run completed less than the gap ago is not made again',
  );
  const { rows } = await store.query<{ n: string }>(
    `SELECT count(*) AS n FROM audit_log WHERE action = 'retention.run' AND actor_kind = 'system' AND status = 200
       AND (counts->>'messages.messages')::int = 3`,
  );
  assert.equal(Number(rows[0]!.n), 1, 'the run is audited once, with its counts');
});

test('a run stopped after its first batch keeps what it removed, and the next run removes the rest, each once', async (t) => {
  const store = await storeWithOldMessages(t, 3);
  const stop = new AbortController();
  // the process is told to stop right after the first batch commits
  const stopping: Store = Object.create(store, {
    transaction: {
      value: async <T>(work: Parameters<Store['transaction']>[0]) => {
        const result = await store.transaction(work);
        stop.abort();
        return result as T;
      },
    },
  });
  const first = await runRetention(options(stopping, 'a', { batchSize: 1, signal: stop.signal, minGapMs: 60_000 }));
  assert.equal(first?.byKind.messages.messages, 1);
  assert.equal((await messageIds(store)).length, 5);
  // not completed, so the gap does not hold the next run back
  const second = await runRetention(options(store, 'b', { batchSize: 1, minGapMs: 60_000 }));
  assert.equal(second?.byKind.messages.messages, 2);
  assert.deepEqual(await messageIds(store), ['g0/new', 'g1/new', 'g2/new']);
  const { rows } = await store.query<{ status: number; n: string }>(
    `SELECT status, counts->>'messages.messages' AS n FROM audit_log WHERE action = 'retention.run' ORDER BY id`,
  );
  assert.deepEqual(
    rows.map((r) => [r.status, Number(r.n)]),
    [
      [503, 1],
      [200, 2],
    ],
  );
});

test('with no period and no override, nothing runs and nothing is removed or audited', async (t) => {
  const store = await storeWithOldMessages(t, 1);
  assert.equal(await runRetention(options(store, 'a', { periods: {} })), undefined);
  assert.deepEqual(await messageIds(store), ['g0/new', 'g0/old']);
  const { rows } = await store.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log`);
  assert.equal(Number(rows[0]!.n), 0);
});

test('a conversation whose metadata asks for a shorter period loses what is older than it; one asking for a longer one does not keep more', async (t) => {
  const store = await storeWithOldMessages(t, 3);
  await store.query(`UPDATE messages SET created_at = now() - interval '3 days' WHERE message_id = 'new'`);
  await store.query(`UPDATE conversations SET metadata = '{"retention": "P1D"}' WHERE id = 'g0'`);
  await store.query(`UPDATE conversations SET metadata = '{"retention": "P1Y"}' WHERE id = 'g1'`);
  await store.query(`UPDATE conversations SET metadata = '{"retention": "soon"}' WHERE id = 'g2'`);
  const run = await runRetention(options(store, 'a'));
  assert.equal(run?.byKind.messages.messages, 4);
  assert.deepEqual(await messageIds(store), ['g1/new', 'g2/new']);
});

test('message retention takes the KAOS events that became expired messages and leaves tool events, which are no messages', async (t) => {
  const store = await storeWithOldMessages(t, 0);
  await store.query(
    `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ('kaos_s', 'kaos', 1, 'kaos_s')`,
  );
  await store.query(
    `INSERT INTO kaos_sessions (agent, session_id, conversation_id, app_name, user_id) VALUES ('a', 's', 'kaos_s', 'app', 'u')`,
  );
  const old = "now() - interval '40 days'";
  await store.query(
    `INSERT INTO kaos_events (conversation_id, seq, event_id, occurred_at, event_type, content, metadata)
     VALUES ('kaos_s', 0, 'e0', ${old}, 'user_message', '"said long ago"', '{}'),
            ('kaos_s', 1, 'e1', ${old}, 'tool_call', '{"name": "lookup"}', '{}')`,
  );
  await store.query(
    `INSERT INTO messages (conversation_id, seq, message_id, sender_id, sender_name, role, content, created_at, source_api, group_key)
     VALUES ('kaos_s', 0, 'e0', 'u', 'u', 'user', 'said long ago', ${old}, 'kaos', 'kaos_s')`,
  );
  await runRetention(options(store, 'r1'));
  assert.deepEqual(await messageIds(store), [], 'the old message is gone');
  const { rows } = await store.query<{ event_id: string }>('SELECT event_id FROM kaos_events ORDER BY seq');
  assert.deepEqual(
    rows.map((r) => r.event_id),
    ['e1'],
    'its event went with it; the tool call stays until RETENTION_KAOS_EVENTS, which is unset',
  );
});
