import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { call } from '../helpers/evermemos-client.js';

/**
 * EverMemOS answers a write with the memories it made when that write ended an episode
 * (`status_info: "extracted"`, `count`, `saved_memories`); every other write is "accumulated".
 * Episodes here end at 3 messages or after an hour of silence.
 */
type WriteAnswer = {
  message: string;
  result: {
    status_info: string;
    count: number;
    saved_memories: { memory_type: string; group_id: string; message_ids: string[]; memcell_event_id_list: string[] }[];
  };
};

async function say(base: string, group: string, id: string, at: string): Promise<WriteAnswer['result']> {
  const res = await call<WriteAnswer>(base, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: id,
    create_time: at,
    sender: id.endsWith('2') ? 'ben' : 'ana',
    content: `Planning note ${id}: the launch review moves to Thursday afternoon.`,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result;
}

test('a write that ends an episode answers with the memories made of it; the others accumulate', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    EPISODE_MAX_MESSAGES: '3',
    EPISODE_SILENCE_MS: '3600000',
    EXTRACTION_SWEEP_INTERVAL_MS: '60000',
  });
  const group = uniqueName('closing');

  for (const id of ['m1', 'm2']) {
    const r = await say(base, group, id, `2026-02-02T09:0${id.slice(1)}:00Z`);
    assert.deepEqual([r.status_info, r.count, r.saved_memories], ['accumulated', 0, []]);
  }
  // The third message reaches the message cap: its own episode closes, and its memories come back.
  const third = await say(base, group, 'm3', '2026-02-02T09:03:00Z');
  assert.equal(third.status_info, 'extracted', JSON.stringify(third));
  assert.ok(third.count > 0);
  assert.equal(third.count, third.saved_memories.length);
  for (const m of third.saved_memories) {
    assert.equal(m.memory_type, 'episodic_memory');
    assert.equal(m.group_id, group);
    assert.deepEqual(m.message_ids, ['m1', 'm2', 'm3']);
  }

  // m4 opens the next episode; m5 comes after two hours of silence and so ends m4's episode (not its own).
  assert.equal((await say(base, group, 'm4', '2026-02-02T09:04:00Z')).status_info, 'accumulated');
  const afterSilence = await say(base, group, 'm5', '2026-02-02T11:30:00Z');
  assert.equal(afterSilence.status_info, 'extracted', JSON.stringify(afterSilence));
  assert.ok(afterSilence.saved_memories.length > 0);
  for (const m of afterSilence.saved_memories) assert.deepEqual(m.message_ids, ['m4']);
  assert.notDeepEqual(
    afterSilence.saved_memories[0]!.memcell_event_id_list,
    third.saved_memories[0]!.memcell_event_id_list,
  );

  // A duplicate of the closing message closes nothing again.
  const again = await say(base, group, 'm3', '2026-02-02T09:03:00Z');
  assert.deepEqual([again.status_info, again.count], ['accumulated', 0]);
});

// The extractor's consumer lingers up to BACKGROUND_LINGER_MS to batch its work; here that linger
// (10 s) outlasts the write's own wait (4 s). The closing write still answers with its memories
// because it asks the extractor to close the episode at once; without that it would say `extracting`.
test('a closing write does not wait for the extractor to linger to its next batch', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    EPISODE_MAX_MESSAGES: '2',
    BACKGROUND_LINGER_MS: '10000',
    REQUEST_SYNC_TIMEOUT_MS: '4000',
    EXTRACTION_SWEEP_INTERVAL_MS: '60000',
  });
  const group = uniqueName('hinted');
  assert.equal((await say(base, group, 'm1', '2026-02-02T09:01:00Z')).status_info, 'accumulated');
  const second = await say(base, group, 'm2', '2026-02-02T09:02:00Z');
  assert.equal(second.status_info, 'extracted', JSON.stringify(second));
  assert.ok(second.saved_memories.length > 0);
  for (const m of second.saved_memories) assert.deepEqual(m.message_ids, ['m1', 'm2']);
});
