import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lifecycle } from '@memstream/runtime';
import { captureLogger } from '../../../test/helpers/logger.js';

test('teardowns run once, last acquired first, and readiness turns off before the first', async () => {
  const { log } = captureLogger();
  const life = new Lifecycle({ log, shutdownTimeoutMs: 5_000 });
  const order: string[] = [];
  life.defer('store', async () => void order.push('store'));
  life.defer('bus', async () => void order.push('bus'));
  life.defer('http', async () => void order.push(`http (ready=${life.ready})`));
  life.markReady();
  assert.equal(life.ready, true);
  const [a, b] = await Promise.all([life.shutdown(), life.shutdown()]);
  assert.deepEqual([a, b], [0, 0]);
  assert.deepEqual(order, ['http (ready=false)', 'bus', 'store']);
});

test('a teardown that fails does not stop the others, and the exit code says so', async () => {
  const { log, lines } = captureLogger();
  const life = new Lifecycle({ log, shutdownTimeoutMs: 5_000 });
  const closed: string[] = [];
  life.defer('store', async () => void closed.push('store'));
  life.defer('bus', async () => {
    throw new Error('broker gone');
  });
  assert.equal(await life.shutdown(), 1);
  assert.deepEqual(closed, ['store']);
  assert.ok(lines().some((l) => l['msg'] === 'teardown failed' && l['resource'] === 'bus'));
});

test('shutdown past its deadline gives up with exit code 1', async () => {
  const { log, lines } = captureLogger();
  const life = new Lifecycle({ log, shutdownTimeoutMs: 50 });
  life.defer('stuck', () => new Promise<void>(() => undefined));
  assert.equal(await life.shutdown(), 1);
  assert.ok(lines().some((l) => l['msg'] === 'shutdown deadline passed, exiting with work unfinished'));
});

test('a resource owned by the lifecycle is released at shutdown with the others, and one that fails to open registers nothing', async () => {
  const { log } = captureLogger();
  const life = new Lifecycle({ log, shutdownTimeoutMs: 5_000 });
  const released: string[] = [];
  const store = await life.own(
    'store',
    async () => ({ name: 'store' }),
    async (s) => void released.push(s.name),
  );
  assert.equal(store.name, 'store');
  await assert.rejects(
    life.own(
      'bus',
      async () => {
        throw new Error('no broker');
      },
      async () => void released.push('bus'),
    ),
    /no broker/,
  );
  life.defer('http', async () => void released.push('http'));
  assert.equal(await life.shutdown(), 0);
  assert.deepEqual(released, ['http', 'store']);
});
