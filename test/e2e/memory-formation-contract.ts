import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { call } from '../helpers/evermemos-client.js';

/** The settings the checks below assume, for both modes. */
export const FORMATION_ENV = {
  EPISODE_MAX_MESSAGES: '4',
  EPISODE_MAX_TOKENS: '200',
  EPISODE_SILENCE_MS: String(3_600_000),
  EPISODE_IDLE_CLOSE_MS: '0',
  EXTRACTION_SWEEP_INTERVAL_MS: '200',
  EXTRACTION_RETRY_INITIAL_MS: '200',
  EXTRACTION_RETRY_MAX_MS: '400',
  INDEXER_SWEEP_INTERVAL_MS: '300',
};

export interface Episodic {
  id: string;
  memory_type: string;
  group_id: string;
  user_id: string | null;
  title: string;
  content: string;
  timestamp: string;
  message_ids: string[];
  version: number;
  extractor: string;
}

export interface Hit {
  id: string;
  memory_type: string;
  content: string;
  score: number;
  group_id: string;
  user_id: string | null;
  timestamp: string;
  message_ids: string[];
}

const MINUTE = 60_000;
const T0 = Date.UTC(2025, 4, 8, 13, 0);

export async function post(
  write: string,
  group: string,
  id: string,
  content: string,
  atMs: number,
  sender = 'ann',
): Promise<string> {
  const res = await call<{ result: { request_id: string } }>(write, 'POST', '/api/v1/memories', {
    group_id: group,
    message_id: id,
    create_time: new Date(atMs).toISOString(),
    sender,
    sender_name: sender === 'ann' ? 'Ann' : sender === 'bob' ? 'Bob' : sender,
    content,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.result.request_id;
}

export async function episodicOf(read: string, group: string): Promise<Episodic[]> {
  const res = await call<{ result: { memories: Episodic[]; total_count: number } }>(
    read,
    'GET',
    `/api/v1/memories?group_id=${encodeURIComponent(group)}&memory_type=episodic_memory&limit=500`,
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result.total_count, res.body.result.memories.length);
  return res.body.result.memories;
}

/** The group's narrative memories (one per episode), oldest episode first. */
async function narratives(read: string, group: string, count: number): Promise<Episodic[]> {
  return waitFor(
    `${count} episodes of ${group}`,
    async () => {
      const all = (await episodicOf(read, group)).filter((m) => m.user_id === null);
      return all.length >= count ? all.reverse() : undefined;
    },
    60_000,
  );
}

export async function search(
  read: string,
  body: Record<string, unknown>,
): Promise<{ memories: Hit[]; total_count: number; pending_messages: Array<{ message_id: string }> }> {
  const res = await call<{
    status: string;
    result: { memories: Hit[]; total_count: number; pending_messages: Array<{ message_id: string }> };
  }>(read, 'POST', '/api/v1/memories/search', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'ok');
  return res.body.result;
}

/**
 * Every boundary rule closes an episode, through the public API: the message cap, the token
 * cap, a long silence and an explicit flush. Extraction (offline here) stores the group's
 * narrative and a memory per participant, with the exact source message ids, and the write's
 * request status becomes `extracted`.
 */
export async function checkBoundaries(write: string, read: string, prefix: string): Promise<void> {
  // Message cap (4): the fourth message closes [0..3]; the fifth stays open and is pending.
  const cap = `${prefix}-cap`;
  const requests: string[] = [];
  for (let i = 0; i < 5; i++) {
    requests.push(
      await post(
        write,
        cap,
        `c${i}`,
        `Plan item ${i}: book the venue in Lisbon for the offsite.`,
        T0 + i * MINUTE,
        i % 2 ? 'bob' : 'ann',
      ),
    );
  }
  const [capEpisode] = await narratives(read, cap, 1);
  assert.deepEqual(capEpisode!.message_ids, ['c0', 'c1', 'c2', 'c3']);
  assert.match(capEpisode!.content, /Thursday, 8 May 2025/);
  const perPerson = (await episodicOf(read, cap))
    .filter((m) => m.user_id !== null)
    .map((m) => m.user_id)
    .sort();
  assert.deepEqual(perPerson, ['ann', 'bob']);
  const status = await waitFor(
    'request status extracted',
    async () => {
      const res = await call<{
        result: { status: string; episode: { memory_ids: string[]; close_reason: string } | null };
      }>(read, 'GET', `/api/v1/stats/request?request_id=${requests[0]}`);
      return res.body.result.status === 'extracted' ? res.body.result : undefined;
    },
    30_000,
  );
  assert.equal(status.episode!.close_reason, 'message_cap');
  assert.equal(status.episode!.memory_ids.length, 3);
  const open = await call<{ result: { status: string; episode: unknown } }>(
    read,
    'GET',
    `/api/v1/stats/request?request_id=${requests[4]}`,
  );
  assert.equal(open.body.result.status, 'stored');
  assert.equal(open.body.result.episode, null);
  const pending = await search(read, { query: 'venue', group_id: cap, retrieve_method: 'keyword' });
  assert.deepEqual(
    pending.pending_messages.map((m) => m.message_id),
    ['c4'],
  );

  // Silence (one hour): a message two hours after the last closes the episode before it.
  const silence = `${prefix}-silence`;
  await post(write, silence, 's0', 'Morning: the build is red again.', T0);
  await post(write, silence, 's1', 'Fixed the flaky test.', T0 + MINUTE, 'bob');
  await post(write, silence, 's2', 'Afternoon: release notes drafted.', T0 + 3 * 60 * MINUTE);
  const [silent] = await narratives(read, silence, 1);
  assert.deepEqual(silent!.message_ids, ['s0', 's1']);

  // Token cap (200, about 800 characters): three 300-character messages close after two.
  const tokens = `${prefix}-tokens`;
  const long = (n: number) =>
    `Message ${n} ${'about the quarterly budget review and its many line items '.repeat(5)}`.slice(0, 300);
  for (let i = 0; i < 3; i++) await post(write, tokens, `t${i}`, long(i), T0 + i * MINUTE);
  const [capped] = await narratives(read, tokens, 1);
  assert.deepEqual(capped!.message_ids, ['t0', 't1']);

  // Flush: closes what is open and (sync) answers once the memories exist.
  const flush = `${prefix}-flush`;
  await post(write, flush, 'f0', 'Let us adopt the new on-call rota from June.', T0);
  await post(write, flush, 'f1', 'Agreed, I will announce it on Friday.', T0 + MINUTE, 'bob');
  const flushed = await call<{
    result: { status_info: string; episodes: Array<{ close_reason: string; message_count: number }> };
  }>(read, 'POST', '/api/v1/memories/flush', { group_id: flush });
  assert.equal(flushed.status, 200, JSON.stringify(flushed.body));
  assert.deepEqual(
    flushed.body.result.episodes.map((e) => [e.close_reason, e.message_count]),
    [['flush', 2]],
  );
  assert.equal(flushed.body.result.status_info, 'extracted');
  const [flushedEpisode] = await narratives(read, flush, 1);
  assert.deepEqual(flushedEpisode!.message_ids, ['f0', 'f1']);
  const again = await call<{ result: { status_info: string } }>(read, 'POST', '/api/v1/memories/flush', {
    group_id: flush,
  });
  assert.equal(again.body.result.status_info, 'nothing_pending');
  const unknown = await call<{ status: string; code: string }>(read, 'POST', '/api/v1/memories/flush', {
    group_id: `${prefix}-nobody`,
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'RESOURCE_NOT_FOUND');
}

/**
 * Search finds a message by every method, scores in [0, 1] best first; deleting the message
 * removes it from every method and from the memories derived from it (the episode is extracted
 * again without it), and a second delete is a 404.
 */
export async function checkSearchAndDelete(write: string, read: string, group: string): Promise<void> {
  const lines = [
    ['ann', 'We finally adopted a greyhound from the shelter; her name is Pixel.'],
    ['bob', 'Congratulations! How is the new apartment in Porto?'],
    ['ann', 'The apartment is lovely, but the kitchen needs new tiles.'],
    ['bob', 'My sister is a tiler, she could help you next weekend.'],
  ] as const;
  for (const [i, [sender, text]] of lines.entries()) await post(write, group, `d${i}`, text, T0 + i * MINUTE, sender);
  await narratives(read, group, 1);
  const methods = ['keyword', 'vector', 'hybrid', 'rrf'] as const;
  const query = 'What is the name of the greyhound Ann adopted?';
  for (const method of methods) {
    const found = await waitFor(
      `${method} finds d0`,
      async () => {
        const r = await search(read, {
          query,
          group_id: group,
          retrieve_method: method,
          memory_types: ['message'],
          top_k: 4,
        });
        return r.memories.some((h) => h.id === 'd0') ? r : undefined;
      },
      30_000,
    );
    assert.equal(found.memories[0]!.id, 'd0', `${method}: the greyhound turn ranks first`);
    assert.deepEqual(found.memories[0]!.message_ids, ['d0']);
    for (const h of found.memories) assert.ok(h.score >= 0 && h.score <= 1, `${method} score ${h.score}`);
    const scores = found.memories.map((h) => h.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  }
  // A memory is searchable once the indexer has its event, which may come after it is readable.
  const memoryHits = await waitFor(
    'the episodic memory is searchable',
    async () => {
      const r = await search(read, {
        query: 'greyhound Pixel',
        group_id: group,
        retrieve_method: 'keyword',
        memory_types: ['episodic_memory'],
      });
      return r.memories.length > 0 ? r : undefined;
    },
    30_000,
  );
  assert.ok(memoryHits.memories.every((h) => h.memory_type === 'episodic_memory'));
  assert.ok(memoryHits.memories[0]!.message_ids.includes('d0'));

  const deleted = await call<{
    result: { deleted_messages: number; deleted_memories: number; episodes_reextracting: number };
  }>(read, 'DELETE', `/api/v1/memories?group_id=${encodeURIComponent(group)}&message_id=d0`);
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.equal(deleted.body.result.deleted_messages, 1);
  assert.ok(deleted.body.result.deleted_memories >= 1);
  assert.equal(deleted.body.result.episodes_reextracting, 1);
  for (const method of methods) {
    const r = await search(read, { query, group_id: group, retrieve_method: method, top_k: 100 });
    assert.ok(
      !r.memories.some((h) => h.message_ids.includes('d0')),
      `${method} still returns d0 or a memory made from it`,
    );
  }
  // Hybrid ranks a turn by its neighbours too, but reads them at query time: no row keeps d0's words.
  const pixel = await search(read, {
    query: 'Pixel',
    group_id: group,
    retrieve_method: 'keyword',
    memory_types: ['message'],
    top_k: 100,
  });
  assert.deepEqual(pixel.memories, []);
  // The episode comes back without the deleted message.
  const redone = await waitFor(
    'the episode re-extracted without d0',
    async () => {
      const n = (await episodicOf(read, group)).filter((m) => m.user_id === null);
      return n.length === 1 && n[0]!.version === 2 ? n[0] : undefined;
    },
    30_000,
  );
  assert.deepEqual(redone!.message_ids, ['d1', 'd2', 'd3']);
  assert.doesNotMatch(redone!.content, /Pixel|greyhound/);
  const again = await call<{ code: string }>(
    read,
    'DELETE',
    `/api/v1/memories?group_id=${encodeURIComponent(group)}&message_id=d0`,
  );
  assert.equal(again.status, 404);
  assert.equal(again.body.code, 'RESOURCE_NOT_FOUND');
  // no filter at all: 422, as EverMemOS's server answers it
  const none = await call<{ code: string }>(read, 'DELETE', '/api/v1/memories');
  assert.equal(none.status, 422);
  assert.equal(none.body.code, 'INVALID_PARAMETER');
}
