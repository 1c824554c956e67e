import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUnavailable } from '@memstream/errors';
import { createLogger } from '@memstream/logging';
import { PgStore } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

// After a failover, a pooled connection can still reach the demoted node, now a read-only standby.
// A session made read-only stands in for it: its writes fail with 25006 as a standby's would.
test('a transaction refused as read-only is unavailable, and its connection is not pooled again', async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 1,
    statementTimeoutMs: 10_000,
    log: createLogger({ service: 'test', level: 'silent' }),
  });
  t.after(() => store.close());
  await store.exec('CREATE TABLE written (id int)');
  await store.transaction((tx) => tx.exec('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY'));

  const insert = () => store.transaction((tx) => tx.query('INSERT INTO written VALUES (1)'));
  await assert.rejects(insert(), (err: unknown) => {
    assert.equal((err as { code?: string }).code, '25006');
    assert.equal(isUnavailable(err), true, 'waited out like an outage, a 503 at the HTTP edge');
    return true;
  });
  await insert(); // on a new connection: the pool's only one was dropped
  assert.deepEqual((await store.query('SELECT count(*)::int AS n FROM written')).rows, [{ n: 1 }]);
});
