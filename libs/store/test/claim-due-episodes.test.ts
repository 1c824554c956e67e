import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueEpisodes, insertEpisodes } from '@memstream/store';
import { migratedStore } from '../../../test/helpers/migrated-store.js';

/**
 * claimDueEpisodes finds the due groups without a lock, then claims group by group: extractor
 * replicas sweeping at once find the same groups, and the row locks and the re-checked lease in
 * each group's claim must still hand every episode to one of them.
 */
test('claimers sweeping at once each take other episodes, and together take every due one once', async (t) => {
  const store = await migratedStore(t);
  const at = new Date('2026-01-01T00:00:00Z');
  const groups = ['g1', 'g2', 'g3', 'g4'];
  for (const group of groups) {
    await store.query(
      `INSERT INTO conversations (id, source_api, next_seq, group_key) VALUES ($1, 'evermemos', 5, $1)`,
      [group],
    );
    await insertEpisodes(
      store,
      group,
      Array.from({ length: 5 }, (_, i) => ({
        startSeq: i,
        endSeq: i,
        messageIds: [`m-${i}`],
        startTime: at,
        endTime: at,
        reason: 'flush' as const,
      })),
    );
  }
  const claimed: number[] = [];
  for (;;) {
    const rounds = await Promise.all(
      Array.from({ length: 8 }, () => claimDueEpisodes(store, { limit: 3, leaseMs: 60_000 })),
    );
    const ids = rounds.flat().map((e) => e.id);
    if (ids.length === 0) break;
    claimed.push(...ids);
  }
  assert.equal(new Set(claimed).size, claimed.length, 'no episode claimed twice');
  assert.equal(claimed.length, groups.length * 5, 'every due episode claimed');
  const { rows } = await store.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM episodes WHERE attempts <> 1 OR claimed_until IS NULL',
  );
  assert.equal(rows[0]?.n, 0, 'each claimed once, under a lease');
});
