import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { PgStore, appendMessages, claimSummary, listSummaries, migrate, startSummary } from '@memstream/store';
import { freshDatabase, waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

// The claim's snapshot can predate the completion of the row it waited for. This reproduces
// that interleaving on a real server: the base must still end up being the memory just completed.
test('native PostgreSQL: a claim racing the previous completion still chains to it once started', async (t) => {
  const url = await freshDatabase(t);
  const a = new PgStore({ connectionString: url, maxConnections: 2, statementTimeoutMs: 10_000, log });
  const b = new PgStore({ connectionString: url, maxConnections: 2, statementTimeoutMs: 10_000, log });
  t.after(async () => {
    await a.close();
    await b.close();
  });
  await migrate(a, log);
  await appendMessages(
    a,
    Array.from({ length: 10 }, (_, i) => ({
      message: {
        conversation_id: 'c',
        message_id: `m${i}`,
        sender_id: 'u',
        sender_name: 'U',
        role: 'user' as const,
        content: `m${i}`,
        created_at: new Date(),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
  const first = await claimSummary(a, { conversationId: 'c', startSequence: 0, endSequence: 5 });
  assert.ok(first);

  let commit!: () => void;
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let updated!: () => void;
  const hasUpdated = new Promise<void>((resolve) => (updated = resolve));
  // Replica A completes the first memory in a transaction it has not committed yet...
  const completing = a.transaction(async (tx) => {
    await tx.query(`UPDATE memory SET status = 'completed', memory_text = 'first' WHERE memory_id = $1`, [
      first.memory_id,
    ]);
    updated();
    await committed;
  });
  await hasUpdated;
  // ...while replica B claims the next one: its insert waits on A's row, its snapshot does not.
  const claiming = claimSummary(b, { conversationId: 'c', startSequence: 0, endSequence: 9 });
  await waitFor('the claim waits on the uncommitted row', async () => {
    const { rows } = await a.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%memory%'`,
    );
    return Number(rows[0]!.n) > 0;
  });
  commit();
  await completing;
  const second = await claiming;
  assert.ok(second, 'the claim went through once the first row stopped processing');
  assert.equal(second.base_memory_id, null, 'the race happened: the claim itself did not see the completion');

  const started = await startSummary(b, second);
  assert.ok(started && started !== 'superseded');
  assert.equal(started.base_memory_id, first.memory_id, 'the base is the memory completed during the claim');
  const rows = await listSummaries(a, 'c');
  assert.deepEqual(
    rows.map((r) => [r.status, r.base_memory_id]),
    [
      ['completed', null],
      ['processing', first.memory_id],
    ],
  );
});
