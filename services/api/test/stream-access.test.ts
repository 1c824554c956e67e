import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFanout } from '@memstream/fanout';
import { createLogger } from '@memstream/logging';
import { ACCESS_CHANGED_CHANNEL } from '@memstream/schemas';
import { PgStore, migrate, removeMembership, setMembership, type Store } from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { StreamAccess } from '../src/shared/stream-access.js';

const log = createLogger({ service: 'test', level: 'silent' });

async function setUp(
  t: TestContext,
  recheckMs: number,
): Promise<{ store: Store; fanout: MemoryFanout; access: StreamAccess }> {
  const store = new PgStore({
    connectionString: await freshDatabase(t),
    maxConnections: 2,
    statementTimeoutMs: 10_000,
    log,
  });
  t.after(() => store.close());
  await migrate(store, log);
  for (const [group, user] of [
    ['g1', 'ann'],
    ['g1', 'bob'],
    ['g2', 'ann'],
  ] as const)
    await setMembership(store, group, user, 'reader');
  const fanout = new MemoryFanout();
  const access = new StreamAccess({ store, fanout, recheckMs, log });
  t.after(() => access.close());
  return { store, fanout, access };
}

/** Watches a stream; `ended` resolves when StreamAccess ends it, `isEnded` tells whether it has. */
async function open(access: StreamAccess, conversationId: string, userId: string) {
  let ended = false;
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  await access.watch(conversationId, userId, () => {
    ended = true;
    resolve();
  });
  return { ended: done, isEnded: () => ended };
}

test('a notice naming a group ends the open streams there of whoever lost access, and no other stream', async (t) => {
  // A re-check interval far past the test: only the notice can end anything here.
  const { store, fanout, access } = await setUp(t, 3_600_000);
  const annInG1 = await open(access, 'g1', 'ann');
  const bobInG1 = await open(access, 'g1', 'bob');
  const annInG2 = await open(access, 'g2', 'ann');
  await removeMembership(store, 'g1', 'ann');
  await removeMembership(store, 'g2', 'ann'); // not named in the notice: left to the periodic re-check
  await fanout.publish(ACCESS_CHANGED_CHANNEL, JSON.stringify({ group_ids: ['g1'] }));
  await annInG1.ended;
  // bob's stream was re-checked in the same statement as ann's, and kept.
  assert.deepEqual([bobInG1.isEnded(), annInG2.isEnded()], [false, false]);
});

test('a stream whose notice was lost ends on the periodic re-check', async (t) => {
  const { store, access } = await setUp(t, 100);
  const ann = await open(access, 'g1', 'ann');
  const bob = await open(access, 'g1', 'bob');
  await removeMembership(store, 'g1', 'ann');
  await ann.ended;
  assert.equal(bob.isEnded(), false);
});
