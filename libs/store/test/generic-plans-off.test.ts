import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '@memstream/logging';
import { GENERIC_PLAN, PgStore } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

// Citus refused every batch insert over unnest() into a distributed table under a generic plan
// ("could not create distributed plan"), one shard or many, and ran them planned for their
// parameters; so on Citus no statement may reach a connection that plans generically.
test('with generic plans off, a statement marked for a generic plan is planned for its parameters', async (t) => {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 2,
    statementTimeoutMs: 10_000,
    log,
    genericPlans: false,
  });
  t.after(() => store.close());
  const { rows } = await store.query<{ mode: string }>(
    `${GENERIC_PLAN} SELECT current_setting('plan_cache_mode') AS mode`,
  );
  assert.equal(rows[0]?.mode, 'force_custom_plan');
});
