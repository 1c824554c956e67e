import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, platformEnv } from '@memstream/config';
import { poolSizeOf } from '@memstream/store';

// The pool's size depends on whose server it talks to unless DATABASE_POOL_MAX says otherwise.

test('unset, the pool opens 6 connections to the embedded server and 10 to one at DATABASE_URL', () => {
  const embedded = loadConfig(platformEnv, {});
  assert.equal(embedded.DATABASE_POOL_MAX, undefined);
  assert.equal(poolSizeOf(embedded), 6);
  const shared = loadConfig(platformEnv, { DATABASE_URL: 'postgres://db/memstream', DATABASE_POOL_MAX: ' ' });
  assert.equal(poolSizeOf(shared), 10);
});

test('DATABASE_POOL_MAX wins in either mode, and a size that is no size is refused by name', () => {
  assert.equal(poolSizeOf(loadConfig(platformEnv, { DATABASE_POOL_MAX: '3' })), 3);
  assert.equal(poolSizeOf(loadConfig(platformEnv, { DATABASE_URL: 'postgres://db/m', DATABASE_POOL_MAX: '40' })), 40);
  for (const bad of ['0', '2.5', 'many', '501'])
    assert.throws(
      () => loadConfig(platformEnv, { DATABASE_POOL_MAX: bad }),
      (err: unknown) => err instanceof ConfigError && /DATABASE_POOL_MAX/.test(err.message),
      bad,
    );
});
