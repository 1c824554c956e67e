import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '@memstream/config';
import { governanceEnv } from '../src/config.js';
import { retentionPeriodsOf } from '../src/retention-job.js';

test('retention settings are ISO 8601 periods; unset or blank keeps a kind forever', () => {
  const config = loadConfig(governanceEnv, {
    RETENTION_MESSAGES: 'P30D',
    RETENTION_DELETED: ' PT12H ',
    RETENTION_MEMORIES: '',
  });
  assert.deepEqual(retentionPeriodsOf(config), { messages: 'P30D', deleted: 'PT12H' });
  assert.deepEqual(retentionPeriodsOf(loadConfig(governanceEnv, {})), {});
});

test('a retention setting that is no positive period stops the start with its name', () => {
  for (const bad of ['30 days', 'P0D', 'P', '-P1D', 'PT']) {
    assert.throws(
      () => loadConfig(governanceEnv, { RETENTION_SUMMARIES: bad }),
      (err: unknown) => err instanceof ConfigError && /RETENTION_SUMMARIES/.test(err.message),
      bad,
    );
  }
});
