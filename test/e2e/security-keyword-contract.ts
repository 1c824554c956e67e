import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import type { SecurityCheck } from './security-callers.js';

/**
 * Issue 49, item 9: keyword scores told a member which words an agent's private memory held.
 * Dora's two messages scored alike for a two-word query; after an agent wrote 15 memory-channel
 * messages holding one of the words into her conversation, one fell and the other rose, while her
 * hits stayed the same. Her scores must not move, in EverMemOS's keyword search and in the
 * memory-service search, while the agent's own search does find its notes.
 */
const QUERY = 'quokka marmot';

async function call<T>(base: string, who: Record<string, string>, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

type Memories = { result: { memories: Array<{ id: string; content: string; score: number }> } };
type MemoryServiceHits = { data: Array<{ message: { id: string }; score: number }> };

/** The keyword scores of `who`'s hits in the conversation, by message id. */
async function keywordScores(base: string, who: Record<string, string>, conversation: string) {
  const res = await call<Memories>(base, who, 'POST', '/api/v1/memories/search', {
    query: QUERY,
    group_id: conversation,
    retrieve_method: 'keyword',
    memory_types: ['message'],
    top_k: 50,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return new Map(res.body.result.memories.map((m) => [m.id, m.score]));
}

/** The memory-service search's scores of `who`'s hits in the conversation, by message id. */
async function memoryServiceScores(base: string, who: Record<string, string>, conversation: string) {
  const res = await call<MemoryServiceHits>(base, who, 'POST', '/v1/user/search/messages', {
    query: QUERY,
    topK: 50,
    conversationIds: [conversation],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return new Map(res.body.data.map((h) => [h.message.id, h.score]));
}

export const keywordStatisticsPerAudience: SecurityCheck = async (base, who, prefix) => {
  const chat = `${prefix}-dora`;
  for (const text of ['The quokka naps under the fig tree', 'Our marmot found the lettuce patch']) {
    const res = await call(base, who.dora, 'POST', `/v1/conversations/${chat}/messages`, {
      content: [{ type: 'text', text }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  // hybrid ranks a message by its vector too: wait until both have theirs, or its score moves
  await waitFor(
    "dora's messages embedded",
    async () => {
      const res = await call<Memories>(base, who.dora, 'POST', '/api/v1/memories/search', {
        query: QUERY,
        group_id: chat,
        retrieve_method: 'vector',
        memory_types: ['message'],
      });
      return res.body.result.memories.length === 2;
    },
    60_000,
  );
  const keyword = await keywordScores(base, who.dora, chat);
  assert.equal(keyword.size, 2, 'both of her messages are hits');
  const [first, second] = [...keyword.values()];
  assert.ok(Math.abs(first! - second!) < 1e-6, `her two messages score alike: ${first}, ${second}`);
  const hybrid = await memoryServiceScores(base, who.dora, chat);
  assert.equal(hybrid.size, 2, 'both of her messages are memory-service hits');

  // the agent's working memory in her conversation, and a note for agents only
  const notes = Array.from({ length: 15 }, (_, i) => ({
    channel: 'memory',
    content: [{ type: 'text', text: `dora's quokka came up again (${i})` }],
  }));
  const sync = await call(base, who.agent, 'POST', `/v1/conversations/${chat}/memory/messages/sync`, {
    messages: notes,
  });
  assert.ok(sync.status === 200 || sync.status === 202, JSON.stringify(sync.body));
  const forAgents = await call(base, who.agent, 'POST', `/v1/agent/conversations/${chat}/messages`, {
    messages: [{ role: 'assistant', content: 'quokka quokka, for agents only', visibility: 'agent' }],
  });
  assert.ok(forAgents.status === 201 || forAgents.status === 202, JSON.stringify(forAgents.body));
  await waitFor(
    'the agent finds its notes',
    async () => (await keywordScores(base, who.agent, chat)).size === 2 + notes.length + 1,
    60_000,
  );

  // both compared at once, so a failure shows each family's scores
  assert.deepEqual(
    {
      keyword: await keywordScores(base, who.dora, chat),
      memoryService: await memoryServiceScores(base, who.dora, chat),
    },
    { keyword, memoryService: hybrid },
    "dora's scores are unchanged",
  );
};
