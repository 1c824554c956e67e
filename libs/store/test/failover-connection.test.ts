import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isUnavailable } from '@memstream/errors';
import { createLogger } from '@memstream/logging';
import { PgStore } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { SeverableLink } from '../../../test/helpers/severable-link.js';

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

test('a server that stops answering mid-transaction fails the call, as unavailable, instead of holding it', async (t) => {
  const target = new URL(await freshDatabase(t));
  const link = await SeverableLink.open(t, { host: target.hostname, port: Number(target.port) });
  const through = new URL(target);
  through.port = String(link.port);
  const store = new PgStore({
    connectionString: through.toString(),
    maxConnections: 1,
    statementTimeoutMs: 1_000,
    log: createLogger({ service: 'test', level: 'silent' }),
  });
  t.after(() => store.close());
  await store.exec('CREATE TABLE written (id int)');

  const started = Date.now();
  const cut = store.transaction(async (tx) => {
    await tx.query('INSERT INTO written VALUES (1)');
    link.sever(); // the primary's machine is lost between two statements: no reset, no answer
    await tx.query('INSERT INTO written VALUES (2)');
  });
  // Without a client-side timeout this never settles: the server's statement_timeout cannot
  // reach a client that no longer hears from it.
  await assert.rejects(cut, (err: unknown) => {
    assert.equal(isUnavailable(err), true, 'a consumer waits and retries; the HTTP edge answers 503');
    return true;
  });
  t.diagnostic(`failed after ${Date.now() - started} ms`);
});
