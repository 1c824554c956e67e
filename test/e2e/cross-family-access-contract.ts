import assert from 'node:assert/strict';
import { call } from '../helpers/evermemos-client.js';
import { waitFor } from '../helpers/infra.js';
import { bearer, credentialsFor, useCredentials, userToken } from '../../harness/credentials.js';
import { markers, openSse } from '../../harness/sse-client.js';

/** Headers of the callers these rules tell apart: the owner, a member, and two agents with keys of their own. */
export interface CrossFamilyCallers {
  readonly owner: Record<string, string>;
  readonly member: Record<string, string>;
  /** The name the member's token carries. */
  readonly memberId: string;
  readonly agent: Record<string, string>;
  readonly otherAgent: Record<string, string>;
}

/**
 * Private chats belong to their person, whoever writes them, and a person speaks only as
 * themselves: mal cannot post as vic (no group: vic's private chat; or in his own group), cannot
 * write to `private:vic` under his own name, and cannot read it; an agent relays a message for
 * vic into her private chat, and vic reads and writes it though nobody shared it with her.
 * `write` is where EverMemOS writes go (the gateway), `read` the read API.
 */
export async function checkPrivateChats(
  write: string,
  read: string,
  prefix: string,
  agent: Record<string, string>,
): Promise<void> {
  const vic = `${prefix}-vic`;
  const mal = `${prefix}-mal`;
  const as = async (who: string | Record<string, string>) => {
    const headers = typeof who === 'string' ? bearer(await userToken(who)) : who;
    useCredentials(write, headers);
    useCredentials(read, headers);
  };
  const post = (id: string, sender: string, content: string, groupId?: string) =>
    call<{ code?: string; result?: { group_id: string } }>(write, 'POST', '/api/v1/memories', {
      ...(groupId === undefined ? {} : { group_id: groupId }),
      message_id: id,
      create_time: '2025-02-01T09:00:00Z',
      sender,
      content,
    });
  const privateChat = `private:${vic}`;
  const total = async (query: string) => {
    const res = await call<{ result: { total_count: number } }>(read, 'GET', `/api/v1/memories?${query}&limit=500`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.result.total_count;
  };

  await as(mal);
  for (const [what, attempt] of [
    ['posting as vic with no group (her private chat)', post('p1', vic, 'mal speaking for vic')],
    ["writing to vic's private chat under his own name", post('p2', mal, 'mal in her chat', privateChat)],
    ['posting as vic in a group of his own', post('p3', vic, 'vic never said this', `${prefix}-mal-group`)],
  ] as const) {
    const res = await attempt;
    assert.deepEqual([res.status, res.body.code], [403, 'FORBIDDEN'], what);
  }
  assert.equal(await total(`user_id=${encodeURIComponent(vic)}`), 0, 'nothing was stored in her name');

  // An agent (a chat backend) relays vic's private message: it lands in her private chat.
  await as(agent);
  const relayed = await post('p4', vic, 'relayed for vic by the backend');
  assert.deepEqual([relayed.status, relayed.body.result?.group_id], [200, privateChat]);

  await as(vic);
  assert.equal(
    await total(`group_id=${encodeURIComponent(privateChat)}`),
    1,
    'vic reads her private chat, though nobody shared it',
  );
  assert.equal((await post('p5', vic, 'vic writes her own private chat')).status, 200);
  assert.equal(await total(`group_id=${encodeURIComponent(privateChat)}`), 2);

  await as(mal);
  assert.equal(await total(`group_id=${encodeURIComponent(privateChat)}`), 0, "mal does not read vic's private chat");
  const context = await call<{ error: { code: string } }>(
    read,
    'GET',
    `/api/v1/context?conversation_id=${encodeURIComponent(privateChat)}`,
  );
  assert.deepEqual([context.status, context.body.error.code], [404, 'RESOURCE_NOT_FOUND']);
  const ark = await call<{ total: number }>(read, 'GET', `/messages?session_id=${encodeURIComponent(privateChat)}`);
  assert.deepEqual([ark.status, ark.body.total], [200, 0]);
  useCredentials(write, {});
  useCredentials(read, {});
}

/** Words that mark each kind of content, so any answer can be checked for what it lets through. */
const WORDS = { public: 'harbor', agents: 'glacier', agentMemory: 'meadow', otherMemory: 'volcano' } as const;

/**
 * Agent-only content stays with agents in every family. In one memory-service conversation the
 * owner writes history messages (harbor); agent A writes one for agents only (glacier) and one
 * to its memory channel (meadow); agent B one to its memory channel (volcano). The owner and a
 * member it is shared with read only harbor, agent A every word but volcano, agent B every word
 * but meadow, through the EverMemOS list (with and without a group) and search (keyword by group,
 * hybrid across groups, the open episode's pending messages), the Memory Agent's context (JSON
 * and text), ARK's list and stream, and memory-service search. Episodes and summaries are read by
 * every member, so they hold harbor only, whoever reads them. Once removed, the member reads
 * nothing of the conversation through any of them.
 */
export async function checkAgentOnlyContent(read: string, prefix: string, callers: CrossFamilyCallers): Promise<void> {
  const conv = `${prefix}-agent-only`;
  const as = (who: Record<string, string>) => useCredentials(read, who);

  const ownerWrites = async (n: number) => {
    as(callers.owner);
    const res = await call(read, 'POST', `/v1/conversations/${conv}/messages`, {
      content: [{ type: 'text', text: `${WORDS.public} lantern number ${n} by the water` }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };
  await ownerWrites(1);
  assert.equal(
    (
      await call(read, 'POST', `/v1/conversations/${conv}/memberships`, {
        userId: callers.memberId,
        accessLevel: 'reader',
      })
    ).status,
    201,
  );
  as(callers.agent);
  const agentWrote = await call(read, 'POST', `/v1/agent/conversations/${conv}/messages`, {
    messages: [
      { role: 'assistant', visibility: 'agent', content: `${WORDS.agents} notes for agents only` },
      { role: 'assistant', channel: 'memory', content: `${WORDS.agentMemory} working memory of agent a` },
    ],
  });
  assert.equal(agentWrote.status, 201, JSON.stringify(agentWrote.body));
  as(callers.otherAgent);
  const otherWrote = await call(read, 'POST', `/v1/agent/conversations/${conv}/messages`, {
    messages: [{ role: 'assistant', channel: 'memory', content: `${WORDS.otherMemory} working memory of agent b` }],
  });
  assert.equal(otherWrote.status, 201, JSON.stringify(otherWrote.body));
  // Rolling summaries start at the sixth message (MEMORY_SUMMARIZE_AFTER_SEQ): the owner writes on.
  for (let n = 2; n <= 4; n++) await ownerWrites(n);

  const everyWord = Object.values(WORDS).join(' ');
  const viewers: Array<{ name: string; headers: Record<string, string>; sees: readonly string[] }> = [
    { name: 'the owner', headers: callers.owner, sees: [WORDS.public] },
    { name: 'a member', headers: callers.member, sees: [WORDS.public] },
    { name: 'agent A', headers: callers.agent, sees: [WORDS.public, WORDS.agents, WORDS.agentMemory] },
    { name: 'agent B', headers: callers.otherAgent, sees: [WORDS.public, WORDS.agents, WORDS.otherMemory] },
  ];
  // Search sees a message once the indexer has it: wait until agent A finds its six (the
  // owner's four, its own two).
  as(callers.agent);
  await waitFor(
    'the conversation indexed',
    async () => {
      const res = await call<{ result: { memories: unknown[] } }>(read, 'POST', '/api/v1/memories/search', {
        query: everyWord,
        group_id: conv,
        retrieve_method: 'keyword',
        memory_types: ['message'],
      });
      return res.status === 200 && res.body.result.memories.length === 6;
    },
    60_000,
  );

  for (const viewer of viewers) {
    as(viewer.headers);
    // The context's summary is everyone's (it holds harbor only), so what an agent finds of its
    // own words there depends on where the summary has reached: only what leaks is asserted.
    const partial = new Set(['Memory Agent context', 'Memory Agent context as text']);
    const reads: Array<[string, () => Promise<string>]> = [
      ['EverMemOS list of the group', () => json('GET', `/api/v1/memories?group_id=${conv}&limit=500`)],
      ['EverMemOS list without a group', () => json('GET', '/api/v1/memories?limit=500')],
      [
        'EverMemOS keyword search with pending messages',
        () => json('POST', '/api/v1/memories/search', { query: everyWord, group_id: conv, retrieve_method: 'keyword' }),
      ],
      [
        'EverMemOS hybrid search across groups',
        () => json('POST', '/api/v1/memories/search', { query: everyWord, retrieve_method: 'hybrid', top_k: 50 }),
      ],
      ['Memory Agent context', () => json('GET', `/api/v1/context?conversation_id=${conv}`)],
      ['Memory Agent context as text', () => text(`/api/v1/context?conversation_id=${conv}&format=text`)],
      ['ARK list', () => json('GET', `/messages?session_id=${conv}`)],
      ['ARK stream from the beginning', () => streamed(`${read}/stream/${conv}?from-beginning=true`)],
      ['memory-service search', () => json('POST', '/v1/user/search/messages', { query: everyWord, topK: 50 })],
    ];
    for (const [where, readIt] of reads) {
      const body = await readIt();
      for (const word of Object.values(WORDS)) {
        if (viewer.sees.includes(word))
          assert.ok(partial.has(where) || body.includes(word), `${viewer.name}, ${where}: ${word} missing`);
        else assert.ok(!body.includes(word), `${viewer.name}, ${where}: ${word} let through`);
      }
    }
  }

  // What is made from the conversation is read by every member: it holds harbor only.
  as(callers.agent);
  const flushed = await call(read, 'POST', '/api/v1/memories/flush', { group_id: conv });
  assert.equal(flushed.status, 200, JSON.stringify(flushed.body));
  const episodic = await json('GET', `/api/v1/memories?group_id=${conv}&memory_type=episodic_memory&limit=500`);
  assert.ok(episodic.includes(WORDS.public), `the episode's memories were made from harbor: ${episodic}`);
  await waitFor(
    'a summary of the conversation',
    async () => (await json('GET', `/api/v1/summaries?conversation_id=${conv}`)).includes('"completed"'),
    60_000,
  );
  const made = [episodic, await json('GET', `/api/v1/summaries?conversation_id=${conv}`)].join('\n');
  for (const word of [WORDS.agents, WORDS.agentMemory, WORDS.otherMemory])
    assert.ok(!made.includes(word), `${word} reached an episode or a summary`);

  // Live too: what agents write reaches an owner's open stream only if the owner may see it.
  as(callers.owner);
  const ownerStream = await openSse(`${read}/stream/${conv}`);
  as(callers.agent);
  const agentStream = await openSse(`${read}/stream/${conv}`);
  try {
    assert.deepEqual([ownerStream.status, agentStream.status], [200, 200]);
    const live = await call(read, 'POST', `/v1/agent/conversations/${conv}/messages`, {
      messages: [
        { role: 'assistant', visibility: 'agent', content: `${WORDS.agents} live for agents` },
        { role: 'assistant', channel: 'memory', content: `${WORDS.agentMemory} live memory of agent a` },
      ],
    });
    assert.equal(live.status, 201, JSON.stringify(live.body));
    await ownerWrites(5);
    await waitFor(
      'both streams hear the owner',
      async () => [ownerStream, agentStream].every((st) => JSON.stringify(st.frames).includes('number 5')),
      20_000,
    );
    const heard = JSON.stringify(ownerStream.frames);
    assert.ok(
      !heard.includes(WORDS.agents) && !heard.includes(WORDS.agentMemory),
      `the owner's live stream let agent-only content through: ${heard}`,
    );
    assert.ok(
      JSON.stringify(agentStream.frames).includes('live for agents'),
      "agent A's stream hears what is for agents",
    );
  } finally {
    ownerStream.close();
    agentStream.close();
  }

  // A removed member reads nothing of it any more, through any family.
  as(callers.owner);
  assert.equal((await call(read, 'DELETE', `/v1/conversations/${conv}/memberships/${callers.memberId}`)).status, 204);
  as(callers.member);
  const gone: Array<[string, Promise<{ status: number; body: unknown }>, number]> = [
    ['EverMemOS list of the group', call(read, 'GET', `/api/v1/memories?group_id=${conv}&limit=500`), 200],
    [
      'EverMemOS search',
      call(read, 'POST', '/api/v1/memories/search', { query: everyWord, group_id: conv, retrieve_method: 'keyword' }),
      200,
    ],
    ['Memory Agent context', call(read, 'GET', `/api/v1/context?conversation_id=${conv}`), 404],
    ['ARK list', call(read, 'GET', `/messages?session_id=${conv}`), 200],
    ['ARK stream', call(read, 'GET', `/stream/${conv}?from-beginning=true`), 404],
    ['memory-service search', call(read, 'POST', '/v1/user/search/messages', { query: everyWord, topK: 50 }), 200],
  ];
  for (const [where, answer, status] of gone) {
    const res = await answer;
    assert.equal(res.status, status, `a removed member, ${where}: ${JSON.stringify(res.body)}`);
    assert.ok(
      !JSON.stringify(res.body).includes(WORDS.public),
      `a removed member, ${where}: still reads the conversation`,
    );
  }
  useCredentials(read, {});

  async function json(method: string, path: string, body?: unknown): Promise<string> {
    const res = await call(read, method, path, body);
    assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
    return JSON.stringify(res.body);
  }
  async function text(path: string): Promise<string> {
    const res = await fetch(`${read}${path}`, { headers: credentialsFor(read) });
    assert.equal(res.status, 200);
    return res.text();
  }
}

/** Every frame a stream sends until it turns live, as one string. */
async function streamed(url: string): Promise<string> {
  const stream = await openSse(url);
  assert.equal(stream.status, 200);
  try {
    await waitFor('the stream turns live', async () => markers(stream).includes('[LIVE_MODE]'), 20_000);
    return JSON.stringify(stream.frames);
  } finally {
    stream.close();
  }
}
