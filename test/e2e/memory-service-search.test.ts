import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import { waitFor } from '../helpers/infra.js';
import { seededRandom } from '../../bench/lib/chat-text.js';

const AGENT_KEY = 'agent-key-0123456789abcdef';
const USERS = ['ann', 'ben', 'cat', 'dan'] as const;
type User = (typeof USERS)[number];
type Level = 'reader' | 'writer' | 'manager';

test('search never returns a message of a conversation the caller cannot read, through random sharing, revoking, forks and deletions', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_API_KEYS: `bot:${AGENT_KEY}`,
    EMBEDDING_PROVIDER: 'hash',
  });
  const seed = Number(process.env['SEARCH_PROPERTY_SEED'] ?? Date.now() % 100_000);
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const headers: Record<User, Record<string, string>> = Object.fromEntries(
    await Promise.all(USERS.map(async (u) => [u, bearer(await userToken(u))])),
  ) as never;
  const call = async <T>(who: Record<string, string>, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...who, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  // The model: each group's owner and members; each conversation's group; deleted groups.
  const groups = new Map<string, { owner: User; members: Map<User, Level> }>();
  const groupOf = new Map<string, string>();
  const deleted = new Set<string>();
  const readable = (u: User, conversation: string) => {
    const g = groups.get(groupOf.get(conversation)!)!;
    return !deleted.has(groupOf.get(conversation)!) && (g.owner === u || g.members.has(u));
  };
  let written = 0;
  const say = async (who: User, conversation: string) => {
    const res = await call<{ id: string }>(headers[who], 'POST', `/v1/conversations/${conversation}/messages`, {
      content: [{ type: 'text', text: `zebra note ${written++} in ${conversation}` }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id;
  };

  for (const owner of USERS) {
    const c = await call<{ id: string }>(headers[owner], 'POST', '/v1/conversations', { title: `${owner}'s` });
    groups.set(c.body.id, { owner, members: new Map() });
    groupOf.set(c.body.id, c.body.id);
    await say(owner, c.body.id);
  }
  const conversations = () => [...groupOf.keys()].filter((c) => !deleted.has(groupOf.get(c)!));

  const check = async (step: string) => {
    // Every message written is found (search is read-your-writes); waited for, not assumed, because
    // a query's embedding queues behind the indexer's backlog on a loaded machine.
    await waitFor(
      'every message indexed',
      async () => {
        const all = await call<{ data: unknown[] }>({ 'x-api-key': AGENT_KEY }, 'POST', '/v1/user/search/messages', {
          query: 'zebra note',
          topK: 100,
        });
        return all.body.data.length >= conversations().length ? true : undefined;
      },
      120_000,
    );
    for (const u of USERS) {
      const res = await call<{ data: Array<{ message: { conversationId: string } }> }>(
        headers[u],
        'POST',
        '/v1/user/search/messages',
        { query: 'zebra note', topK: 100 },
      );
      assert.equal(res.status, 200);
      for (const hit of res.body.data) {
        assert.ok(
          readable(u, hit.message.conversationId),
          `seed ${seed}, ${step}: ${u} found a message of ${hit.message.conversationId}`,
        );
      }
      const expected = conversations().filter((c) => readable(u, c)).length;
      const seen = new Set(res.body.data.map((h) => h.message.conversationId)).size;
      assert.ok(
        seen >= Math.min(1, expected),
        `seed ${seed}, ${step}: ${u} found nothing of the ${expected} conversations they may read`,
      );
    }
  };

  await check('start');
  for (let step = 0; step < 24; step++) {
    const live = [...groups.keys()].filter((g) => !deleted.has(g));
    if (live.length === 0) break;
    const group = pick(live);
    const g = groups.get(group)!;
    const action = rnd();
    if (action < 0.4) {
      const u = pick(USERS.filter((x) => x !== g.owner));
      const level = pick(['reader', 'writer', 'manager'] as const);
      const res = g.members.has(u)
        ? await call(headers[g.owner], 'PATCH', `/v1/conversations/${group}/memberships/${u}`, { accessLevel: level })
        : await call(headers[g.owner], 'POST', `/v1/conversations/${group}/memberships`, {
            userId: u,
            accessLevel: level,
          });
      assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res));
      g.members.set(u, level);
    } else if (action < 0.7 && g.members.size > 0) {
      const u = pick([...g.members.keys()]);
      assert.equal((await call(headers[g.owner], 'DELETE', `/v1/conversations/${group}/memberships/${u}`)).status, 204);
      g.members.delete(u);
    } else if (action < 0.92) {
      const inGroup = conversations().filter((c) => groupOf.get(c) === group);
      const from = pick(inGroup);
      const at = await say(g.owner, from);
      const fork = await call<{ id: string }>(
        headers[g.owner],
        'POST',
        `/v1/conversations/${from}/messages/${at}/fork`,
        {},
      );
      assert.equal(fork.status, 201, JSON.stringify(fork.body));
      groupOf.set(fork.body.id, group);
      await say(g.owner, fork.body.id);
    } else {
      assert.equal((await call(headers[g.owner], 'DELETE', `/v1/conversations/${group}`)).status, 204);
      deleted.add(group);
    }
    await check(`step ${step}`);
  }
});
