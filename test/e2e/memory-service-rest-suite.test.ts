import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { distributedEnv, startApi, startServices } from '../helpers/distributed.js';
import { freshDatabase, uniqueName } from '../helpers/infra.js';
import { TEST_JWT_SECRET } from '../../harness/credentials.js';
import { CONVERSATIONS, type Scenario } from './memory-service-rest-conversations.js';
import { MESSAGES } from './memory-service-rest-messages.js';
import { FORKING, SHARING } from './memory-service-rest-sharing.js';
import { MULTI_AGENT, SUMMARIES } from './memory-service-rest-summaries.js';
import { ADMIN } from './memory-service-rest-admin.js';
import { EVICTION } from './memory-service-rest-eviction.js';
import { TRANSFERS } from './memory-service-rest-transfers.js';
import { SUITE_KEYS, World } from './memory-service-rest-world.js';

/**
 * The REST scenarios of the memory-service's own Cucumber suite at commit 1b5ccae3 (the commit
 * whose openapi.yml we serve), for conversations, messages, forking, sharing, summaries,
 * multi-agent memory, the admin API and eviction, and of its ownership-transfers feature (added
 * two days later, with `/v1/ownership-transfers`), replayed against memstream with authentication
 * on: our own code, written from the features and the step definitions' requests and checks.
 */
const SCENARIOS: readonly Scenario[] = [
  ...CONVERSATIONS,
  ...MESSAGES,
  ...FORKING,
  ...SHARING,
  ...SUMMARIES,
  ...MULTI_AGENT,
  ...ADMIN,
  ...EVICTION,
  ...TRANSFERS,
];

/**
 * Scenarios that fail on purpose or for a reason outside this suite's fixes, each with why. The
 * run fails when any other scenario fails, and also when one of these passes (so the list is
 * kept true when their cause goes).
 */
const KNOWN: Readonly<Record<string, string>> = {};

const AUTH_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: Object.values(SUITE_KEYS)
    .map((k) => `${k.clientId}:${k.key}`)
    .join(','),
  // the suite's test profile: small eviction batches, so one eviction takes several
  EVICTION_BATCH_SIZE: '10',
};

/** Clears what earlier scenarios left, as the suite's clearDatabase does before each: an agent deletes every conversation. */
async function clearConversations(base: string): Promise<void> {
  const agent = { 'x-api-key': SUITE_KEYS['test-agent-key'].key };
  for (;;) {
    const res = await fetch(`${base}/v1/conversations?limit=200&mode=roots`, { headers: agent });
    const { data } = (await res.json()) as { data: Array<{ id: string }> };
    if (data.length === 0) return;
    for (const c of data) {
      const gone = await fetch(`${base}/v1/conversations/${encodeURIComponent(c.id)}`, {
        method: 'DELETE',
        headers: agent,
      });
      assert.ok(gone.status === 204 || gone.status === 404, `clearing ${c.id}: ${gone.status}`);
    }
  }
}

async function replay(t: TestContext, base: string, databaseUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const failed = new Map<string, string>();
  for (const s of SCENARIOS) {
    await clearConversations(base);
    try {
      await s.run(new World(base, db));
    } catch (err) {
      failed.set(s.name, `${s.feature}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const passed = SCENARIOS.length - failed.size;
  t.diagnostic(`${passed} of ${SCENARIOS.length} scenarios pass`);
  for (const [name, why] of failed) t.diagnostic(`fails: ${name} (${KNOWN[name] ? `known: ${KNOWN[name]}` : why})`);
  const unexpected = [...failed].filter(([name]) => !KNOWN[name]).map(([name, why]) => `${name}: ${why}`);
  const nowPassing = Object.keys(KNOWN).filter((name) => !failed.has(name));
  assert.deepEqual(unexpected, [], `scenarios failing:\n${unexpected.join('\n')}`);
  assert.deepEqual(nowPassing, [], 'scenarios listed as known failures now pass: take them off KNOWN');
}

test("embedded mode with authentication: the memory-service's own REST scenarios (1b5ccae3) pass, but the deviations listed", async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...AUTH_ENV, DATABASE_URL: databaseUrl });
  await replay(t, base, databaseUrl);
});

test("distributed mode with authentication: the memory-service's own REST scenarios on the read API, the converter and the indexer", async (t: TestContext) => {
  const env = await distributedEnv(t, 'msrest', {
    ...AUTH_ENV,
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    EMBEDDING_PROVIDER: 'hash',
    INDEXER_GROUP_ID: uniqueName('indexer'),
  });
  await startServices(t, env, ['converter', 'governance', 'indexer']);
  const [api] = await startApi(t, env);
  await replay(t, api!, env['DATABASE_URL']!);
});
