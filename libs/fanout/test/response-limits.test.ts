import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '@memstream/logging';
import {
  DEFAULT_RESPONSE_LIMITS,
  MemoryResponseStreams,
  RedisResponseStreams,
  type ResponseEvent,
  type ResponseLimits,
  type ResponseStreams,
} from '@memstream/fanout';
import { infra, uniqueName, waitFor } from '../../../test/helpers/infra.js';

const log = createLogger({ service: 'test', level: 'silent' });

const LIMITS: ResponseLimits = {
  ...DEFAULT_RESPONSE_LIMITS,
  maxBytes: 20,
  maxTokens: 5,
  maxInProgressPerPerson: 2,
  maxInProgressPerAgent: 3,
  idleS: 1,
};

const implementations: Array<[string, (limits: ResponseLimits) => ResponseStreams]> = [
  ['in-process', (limits) => new MemoryResponseStreams(60, limits)],
  ['Redis', (limits) => new RedisResponseStreams(infra().redisUrl, 60, limits, log)],
];

// Each test its own callers: Redis keeps a caller's responses in progress across tests.
const person = () => ({ key: `person:${uniqueName('alice')}`, agent: false });
const agentKey = () => ({ key: `agent:${uniqueName('agent')}`, agent: true });

/** Everything a reader replays of a response that has ended (or is forgotten). */
async function replay(responses: ResponseStreams, id: string): Promise<string[]> {
  const seen: ResponseEvent[] = [];
  const stop = new AbortController();
  await responses.follow(id, (e) => seen.push(e), stop.signal);
  return seen.map((e) => (e.type === 'token' ? e.text : e.type));
}

for (const [name, make] of implementations) {
  test(`${name} resumer: a call past a response's bytes or tokens is refused and keeps nothing of it`, async (t) => {
    const responses = make(LIMITS);
    t.after(() => responses.close());
    const alice = person();
    const id = uniqueName('conv');
    assert.equal(await responses.record(id, ['0123456789', 'é'], false, alice), 'recorded');
    // 12 bytes held (é is two): 9 more pass the 20
    assert.deepEqual(await responses.record(id, ['012345678'], false, alice), { refused: 'bytes', limit: 20 });
    assert.deepEqual(await responses.record(id, ['a', 'b', 'c', 'd'], false, alice), { refused: 'tokens', limit: 5 });
    assert.equal(await responses.record(id, ['a', 'b', 'c'], true, alice), 'recorded');
    assert.deepEqual(await replay(responses, id), ['0123456789', 'é', 'a', 'b', 'c', 'done']);
    // a new response starts from nothing
    assert.equal(await responses.record(id, ['x'.repeat(20)], true, alice), 'recorded');
  });

  test(`${name} resumer: a caller has a bounded number of responses in progress; an ended one frees its place`, async (t) => {
    const responses = make(LIMITS);
    t.after(() => responses.close());
    const [alice, agent] = [person(), agentKey()];
    const [a, b, c] = [uniqueName('conv'), uniqueName('conv'), uniqueName('conv')];
    assert.equal(await responses.record(a, ['1'], false, alice), 'recorded');
    assert.equal(await responses.record(b, ['1'], false, alice), 'recorded');
    assert.deepEqual(await responses.record(c, ['1'], false, alice), { refused: 'in_progress', limit: 2 });
    assert.equal(await responses.state(c), 'none');
    // adding to one in progress is not starting another
    assert.equal(await responses.record(a, ['2'], false, alice), 'recorded');
    // an agent answers many people: its own, larger, bound
    for (const id of [c, uniqueName('conv'), uniqueName('conv')])
      assert.equal(await responses.record(id, ['1'], false, agent), 'recorded');
    assert.deepEqual(await responses.record(uniqueName('conv'), ['1'], false, agent), {
      refused: 'in_progress',
      limit: 3,
    });
    assert.equal(await responses.record(a, [], true, alice), 'recorded');
    assert.equal(await responses.cancel(b), true);
    const d = uniqueName('conv');
    assert.equal(await responses.record(d, ['1'], false, alice), 'recorded');
    await responses.discard([d]);
    assert.equal(await responses.record(uniqueName('conv'), ['1'], false, alice), 'recorded');
  });

  test(`${name} resumer: an unfinished response falls silent and is forgotten, its follower ends, its place is free`, async (t) => {
    const responses = make({ ...LIMITS, maxInProgressPerPerson: 1 });
    t.after(() => responses.close());
    const alice = person();
    const id = uniqueName('conv');
    assert.equal(await responses.record(id, ['tok'], false, alice), 'recorded');
    const followed = replay(responses, id);
    await waitFor('the silent response forgotten', async () => (await responses.state(id)) === 'none');
    assert.deepEqual(await followed, ['tok']);
    assert.equal(await responses.record(uniqueName('conv'), ['1'], false, alice), 'recorded');
  });
}

test('in-process resumer: every held response together stays within the memory budget', async (t) => {
  const responses = new MemoryResponseStreams(60, { ...LIMITS, maxBytes: 1000, memoryBudgetBytes: 400 });
  t.after(() => responses.close());
  const agent = agentKey();
  const held: string[] = [];
  // each response: 100 bytes and 1 token (64): two fit in 400, the third does not
  for (let i = 0; i < 2; i++) {
    held.push(uniqueName('conv'));
    assert.equal(await responses.record(held[i]!, ['x'.repeat(100)], true, agent), 'recorded');
  }
  assert.deepEqual(await responses.record(uniqueName('conv'), ['x'.repeat(100)], true, agent), {
    refused: 'busy',
    limit: 400,
  });
  assert.equal(responses.heldCost(), 328);
  await responses.discard([held[0]!]);
  assert.equal(await responses.record(uniqueName('conv'), ['x'.repeat(100)], true, agent), 'recorded');
});
