import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isReadOnly } from '../src/read-only-sql.js';
import { FreshRead } from '../src/fresh-read.js';

test('a caller gets a reading that started after it asked, shared with everyone who asked meanwhile', async () => {
  const releases: Array<() => void> = [];
  let started = 0;
  const reading = new FreshRead(
    () =>
      new Promise<number>((resolve) => {
        const n = ++started;
        releases.push(() => resolve(n));
      }),
  );
  const first = reading.get();
  // These arrive while reading 1 runs: it may predate a write they must see, so they share reading 2.
  const second = reading.get();
  const third = reading.get();
  assert.equal(started, 1);
  releases[0]!();
  assert.equal(await first, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(started, 2, 'the next reading starts once the first ends');
  releases[1]!();
  assert.deepEqual([await second, await third], [2, 2]);
  // join() takes whatever is in flight: for a value any recent reading will do.
  const fourth = reading.get();
  const joined = reading.join();
  releases[2]!();
  assert.deepEqual([await fourth, await joined], [3, 3]);
});

test('only plain reads go to a replica: a statement that writes, locks or draws a sequence stays on the primary', () => {
  const reads = [
    'SELECT 1',
    '/* generic plan */ SELECT id FROM messages WHERE conversation_id = $1',
    '  with recent AS (SELECT * FROM messages) SELECT count(*) FROM recent',
    'SELECT updated_at, deleted_at FROM conversations',
  ];
  const writes = [
    'INSERT INTO t VALUES (1)',
    'WITH gone AS (DELETE FROM t RETURNING id) SELECT count(*) FROM gone',
    'SELECT * FROM jobs WHERE id = $1 FOR UPDATE SKIP LOCKED',
    'SELECT id FROM jobs FOR NO KEY UPDATE',
    'SELECT * FROM t FOR SHARE',
    "SELECT pg_advisory_xact_lock(hashtext('x'))",
    "SELECT nextval('s')",
    'UPDATE t SET a = 1',
    '/* generic plan */ DELETE FROM t',
  ];
  assert.deepEqual(
    reads.map((sql) => isReadOnly(sql)),
    reads.map(() => true),
  );
  assert.deepEqual(
    writes.map((sql) => isReadOnly(sql)),
    writes.map(() => false),
  );
});
