import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { announceExtracted, ExtractionWaiter, listenForClosingHints, type WaitClock } from '@memstream/episodes';
import { MemoryFanout } from '@memstream/fanout';
import { EPISODE_CLOSING_CHANNEL, EPISODES_EXTRACTED_CHANNEL } from '@memstream/schemas';
import {
  appendMessages,
  claimEpisodes,
  completeEpisode,
  insertEpisodes,
  type Episode,
  type Queryable,
  type Store,
} from '@memstream/store';
import { waitFor } from '../../../test/helpers/infra.js';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

const HOUR = 3_600_000;

/** Time that moves only when the test says so: a wait ends by a notice unless the test advances it. */
function manualClock(): WaitClock & { advance(ms: number): void; timers(): number } {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      timers.set(next, { at: now + ms, fn });
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at > now) continue;
        timers.delete(id);
        t.fn();
      }
    },
    timers: () => timers.size,
  };
}

// One database for the file; each test closes episodes of its own group.
let store: Store;
before(async () => {
  store = await migratedPglite();
});
after(() => store.close());

async function pendingEpisode(groupId: string): Promise<Episode> {
  await appendMessages(store, [
    {
      message: {
        conversation_id: groupId,
        message_id: 'm1',
        sender_id: 'u1',
        sender_name: 'User One',
        role: 'user',
        content: 'the launch moves to March',
        created_at: new Date('2025-01-15T02:00:00Z'),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    },
  ]);
  const at = new Date('2025-01-15T02:00:00Z');
  const [episode] = await insertEpisodes(store, groupId, [
    { startSeq: 0, endSeq: 0, messageIds: ['m1'], startTime: at, endTime: at, reason: 'flush' },
  ]);
  return episode!;
}

async function extract(episode: Episode): Promise<void> {
  const [claimed] = await claimEpisodes(store, {
    group: episode.group_key,
    ids: [episode.id],
    limit: 1,
    leaseMs: 60_000,
  });
  await store.transaction((tx) =>
    completeEpisode(tx, claimed!, [{ userId: null, title: 'Launch', content: 'The launch moves to March.' }], {
      extractor: 'test',
      participants: ['u1'],
    }),
  );
}

/** The wait, and whether it has answered yet. */
function watch(wait: Promise<Episode[]>): { answered: () => boolean; result: Promise<Episode[]> } {
  let answered = false;
  const result = wait.finally(() => (answered = true));
  return { answered: () => answered, result };
}

test("a waiting flush is answered by the extractor's notice, not by reading the store again on a timer", async (t) => {
  const fanout = new MemoryFanout();
  const clock = manualClock();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: HOUR, clock });
  t.after(stop);
  const episode = await pendingEpisode('g-notice');
  const wait = watch(waiter.untilExtracted(store, [episode.id], HOUR));
  await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
  await extract(episode);
  await announceExtracted(fanout, [episode.id + 1000]); // someone else's episode: no read, no answer
  assert.equal(wait.answered(), false);
  await announceExtracted(fanout, [episode.id]);
  await waitFor('the wait to answer', async () => wait.answered());
  assert.deepEqual(
    (await wait.result).map((e) => [e.id, e.status]),
    [[episode.id, 'extracted']],
  );
});

test('a lost notice delays the answer by one re-check, and a wait whose time is up answers with what stands', async (t) => {
  const fanout = new MemoryFanout();
  const clock = manualClock();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: 1_000, clock });
  t.after(stop);
  const episode = await pendingEpisode('g-lost');
  const lost = watch(waiter.untilExtracted(store, [episode.id], HOUR));
  await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
  await extract(episode); // and nobody announces it
  clock.advance(1_000);
  await waitFor('the re-check to answer', async () => lost.answered());
  assert.deepEqual(
    (await lost.result).map((e) => e.status),
    ['extracted'],
  );

  const other = await pendingEpisode('g-late');
  const late = watch(waiter.untilExtracted(store, [other.id], 2_500));
  for (const step of [1_000, 1_000]) {
    await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
    clock.advance(step);
  }
  await waitFor('the wait to sleep its last half second', async () => clock.timers() === 1);
  assert.equal(late.answered(), false);
  clock.advance(500);
  await waitFor('the deadline to answer', async () => late.answered());
  assert.deepEqual(
    (await late.result).map((e) => e.status),
    ['pending'],
  );
});

test('episodes already extracted are answered at once, and stopping the waiter answers every wait', async () => {
  const fanout = new MemoryFanout();
  const clock = manualClock();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: HOUR, clock });
  const done = await pendingEpisode('g-done');
  await extract(done);
  assert.deepEqual(
    (await waiter.untilExtracted(store, [done.id], HOUR)).map((e) => e.status),
    ['extracted'],
  );
  assert.equal(clock.timers(), 0);

  const open = await pendingEpisode('g-stop');
  const held = watch(waiter.untilExtracted(store, [open.id], HOUR));
  await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
  await stop();
  await waitFor('the stop to answer', async () => held.answered());
  assert.deepEqual(
    (await held.result).map((e) => e.status),
    ['pending'],
  );
  // what arrives after the stop reaches nobody
  await fanout.publish(EPISODES_EXTRACTED_CHANNEL, JSON.stringify({ episode_ids: [open.id] }));
});

test('a wait for an episode not closed yet is answered once an extracted episode holds the message', async (t) => {
  const fanout = new MemoryFanout();
  const clock = manualClock();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: HOUR, clock });
  t.after(stop);
  const group = 'g-unclosed';
  const at = new Date('2025-01-15T02:00:00Z');
  await appendMessages(
    store,
    ['m1', 'm2'].map((id) => ({
      message: {
        conversation_id: group,
        message_id: id,
        sender_id: 'u1',
        sender_name: 'User One',
        role: 'user' as const,
        content: `note ${id}`,
        created_at: at,
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    })),
  );
  // Waiting for the episode that will hold message 1; none holds it yet.
  const wait = watch(waiter.untilHeldAndExtracted(store, group, [1], HOUR));
  await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
  // An episode of message 0 alone, extracted and announced, is not the one waited for.
  const [first] = await insertEpisodes(store, group, [
    { startSeq: 0, endSeq: 0, messageIds: ['m1'], startTime: at, endTime: at, reason: 'message_cap' },
  ]);
  await extract(first!);
  await announceExtracted(fanout, [first!.id]);
  await waitFor('the wait to sleep again', async () => clock.timers() === 1);
  assert.equal(wait.answered(), false);
  const [second] = await insertEpisodes(store, group, [
    { startSeq: 1, endSeq: 1, messageIds: ['m2'], startTime: at, endTime: at, reason: 'message_cap' },
  ]);
  await extract(second!);
  // Its id was unknown when the wait began: any notice wakes it.
  await announceExtracted(fanout, [second!.id]);
  await waitFor('the wait to answer', async () => wait.answered());
  assert.deepEqual(
    (await wait.result).map((e) => [e.id, e.status]),
    [[second!.id, 'extracted']],
  );
});

test("a closing write's wait reads again for its own conversation's notices only, or for a notice that names none", async (t) => {
  const fanout = new MemoryFanout();
  const clock = manualClock();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: HOUR, clock });
  t.after(stop);
  const group = 'g-own-notices';
  const at = new Date('2025-01-15T02:00:00Z');
  const [message] = await appendMessages(store, [
    {
      message: {
        conversation_id: group,
        message_id: 'm1',
        sender_id: 'u1',
        sender_name: 'User One',
        role: 'user' as const,
        content: 'the launch moves to March',
        created_at: at,
        refer_list: [],
        metadata: {},
        source_api: 'evermemos' as const,
      },
    },
  ]);
  let reads = 0;
  const counted: Queryable = {
    query: ((sql: string, params?: unknown[]) => (reads++, store.query(sql, params))) as Queryable['query'],
    exec: (sql) => store.exec(sql),
  };
  const wait = watch(waiter.untilHeldAndExtracted(counted, group, [message!.message.seq], HOUR));
  await waitFor('the wait to sleep on its timer', async () => clock.timers() === 1);
  assert.equal(reads, 1);
  // Another group's episodes were extracted: nothing of this one can have changed.
  await announceExtracted(fanout, [1_000_000], 'g-someone-else');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(reads, 1, "another conversation's notice is not read for");
  // A notice from an extractor that names no conversation may be this one's.
  await announceExtracted(fanout, [1_000_001]);
  await waitFor('a read for the unnamed notice', async () => reads === 2 && clock.timers() === 1);
  const [episode] = await insertEpisodes(store, group, [
    { startSeq: 0, endSeq: 0, messageIds: ['m1'], startTime: at, endTime: at, reason: 'message_cap' },
  ]);
  await extract(episode!);
  await announceExtracted(fanout, [episode!.id], group);
  await waitFor('the wait to answer', async () => wait.answered());
  assert.deepEqual(
    (await wait.result).map((e) => [e.id, e.status]),
    [[episode!.id, 'extracted']],
  );
});

test('asking to close says whether an extractor heard it, which hears the conversation named', async () => {
  const fanout = new MemoryFanout();
  const { waiter, stop } = await ExtractionWaiter.listen(fanout, { recheckMs: HOUR, clock: manualClock() });
  assert.equal(await waiter.askToClose('g-1'), false, 'no extractor listens: a write need not wait');
  const asked: string[] = [];
  const unsubscribe = await listenForClosingHints(fanout, (id) => asked.push(id));
  assert.equal(await waiter.askToClose('g-1'), true);
  assert.deepEqual(asked, ['g-1']);
  // anything else on the channel is not a hint
  await fanout.publish(EPISODE_CLOSING_CHANNEL, 'not json');
  await fanout.publish(EPISODE_CLOSING_CHANNEL, JSON.stringify({ conversation_id: '' }));
  assert.deepEqual(asked, ['g-1']);
  await unsubscribe();
  await stop();
});
