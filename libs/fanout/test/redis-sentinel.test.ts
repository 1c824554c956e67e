import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import { RedisFanout, createRequestLedger } from '@memstream/fanout';
import { runCaptured } from '../../../harness/processes.js';
import { uniqueName, waitFor } from '../../../test/helpers/infra.js';
import { sentinelOptionsOf } from '../src/redis-connection.js';

const log = createLogger({ service: 'test', level: 'silent' });
// A master, its replica and a sentinel of this file's own (scripts/infra/redis-sentinel.sh).
const env = {
  ...process.env,
  MEMSTREAM_INFRA_DIR: '/tmp/memstream-redis-sentinel',
  MEMSTREAM_SENTINEL_BASE_PORT: '36479',
};
const SENTINEL_URL = 'redis+sentinel://127.0.0.1:36481/memstream';

async function sentinel(action: 'up' | 'down' | 'kill-master'): Promise<void> {
  const run = await runCaptured('bash', ['scripts/infra/redis-sentinel.sh', action], { env });
  if (run.code !== 0) throw new Error(`redis-sentinel.sh ${action} failed: ${run.stderr.slice(-1000)}`);
}

test('REDIS_URL names a Sentinel deployment: its master name, sentinels, credentials and database', () => {
  assert.deepEqual(sentinelOptionsOf('redis+sentinel://app:s%40cret@s1:26379,s2,10.0.0.3:26380/memstream/2'), {
    name: 'memstream',
    sentinels: [
      { host: 's1', port: 26379 },
      { host: 's2', port: 26379 },
      { host: '10.0.0.3', port: 26380 },
    ],
    username: 'app',
    password: 's@cret',
    db: 2,
  });
  assert.equal(sentinelOptionsOf('redis://127.0.0.1:6379'), undefined);
  assert.throws(() => sentinelOptionsOf('redis+sentinel://s1:26379'), /master name/);
});

test('with Sentinel, live fan-out and the request ledger carry on on the promoted replica after the master is killed', async (t) => {
  t.after(async () => {
    await sentinel('down');
    await rm(env.MEMSTREAM_INFRA_DIR, { recursive: true, force: true });
  });
  await sentinel('up');
  const publisher = new RedisFanout(SENTINEL_URL, log);
  const subscriber = new RedisFanout(SENTINEL_URL, log);
  const ledger = createRequestLedger(SENTINEL_URL, 60, log);
  t.after(() => Promise.all([publisher.close(), subscriber.close(), ledger.close()]));
  const channel = uniqueName('ch');
  // Before anything waits on the connection: reached through the sentinel, the master answers.
  await waitFor('the master answers', async () => (await publisher.publish(channel, 'hello').catch(() => -1)) >= 0);
  const heard: string[] = [];
  await subscriber.subscribe(channel, (m) => heard.push(m));
  await publisher.publish(channel, 'before');
  await waitFor('heard before the failover', async () => heard.includes('before'));

  await sentinel('kill-master');
  // Publishing fails or reaches nobody until the sentinel promoted the replica and both clients moved there.
  await waitFor(
    'heard after the failover',
    async () => {
      await publisher.publish(channel, 'after').catch(() => 0);
      return heard.includes('after');
    },
    60_000,
  );
  const request = uniqueName('req');
  await ledger.markAccepted(request);
  assert.equal(await ledger.isAccepted(request), true, 'the ledger writes and reads on the new master');
});
