import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import type { SecurityCallers, SecurityCheck } from './security-callers.js';

/**
 * Issue 49, items 3 and 4: nobody speaks for another. When a person writes, the sender stored is
 * that person, in every family; a write naming someone else is refused (403) unless an agent sends
 * it. Export and erasure then follow the right person.
 */

type Headers = Record<string, string>;
interface Reply {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  readonly text: string;
}

async function http(base: string, who: Headers, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? who : { ...who, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined; // NDJSON: read from text
  }
  return { status: res.status, body: parsed, text };
}

async function ok(reply: Promise<Reply>, status: number, what: string): Promise<Reply> {
  const r = await reply;
  assert.equal(r.status, status, `${what}: ${r.text.slice(0, 400)}`);
  return r;
}

/** Who the EverMemOS list says wrote each message of a conversation, by content. */
async function senders(base: string, who: Headers, conversationId: string): Promise<Record<string, string>> {
  const r = await ok(
    http(base, who, 'GET', `/api/v1/memories?group_id=${encodeURIComponent(conversationId)}&limit=100`),
    200,
    'EverMemOS list',
  );
  const memories = r.body.result.memories as Array<{ content: string; user_id: string }>;
  return Object.fromEntries(memories.map((m) => [m.content, m.user_id]));
}

/** The conversation of a KAOS session, as the console lists it to its owner. */
async function kaosConversation(base: string, owner: Headers, agent: string, sessionId: string): Promise<string> {
  let cursor: string | null = null;
  do {
    const page: Reply = await ok(
      http(base, owner, 'GET', `/v1/console/conversations?family=kaos&limit=100${cursor ? `&cursor=${cursor}` : ''}`),
      200,
      'console conversations',
    );
    const found = (page.body.data as Array<{ id: string; session: { agent: string; sessionId: string } | null }>).find(
      (c) => c.session?.agent === agent && c.session.sessionId === sessionId,
    );
    if (found) return found.id;
    cursor = page.body.nextCursor as string | null;
  } while (cursor !== null);
  throw new Error(`no conversation for KAOS session ${sessionId}`);
}

const share = (base: string, owner: Headers, id: string, userId: string) =>
  ok(
    http(base, owner, 'POST', `/v1/conversations/${encodeURIComponent(id)}/memberships`, {
      userId,
      accessLevel: 'writer',
    }),
    201,
    `shared with ${userId}`,
  );

/** A KAOS session of `owner`, shared with `member` as writer, each having said one thing in it. */
async function sharedKaosSession(
  base: string,
  owner: Headers,
  member: { headers: Headers; id: string },
  prefix: string,
  words: { owner: string; member: string; memberAnswer: string },
): Promise<string> {
  const agent = { 'x-kaos-agent': `${prefix}-agent` };
  const sessionId = `${prefix}-kaos`;
  await ok(
    http(base, { ...owner, ...agent }, 'POST', '/memory/sessions', { app_name: 'app', session_id: sessionId }),
    201,
    'session',
  );
  const events = `/memory/sessions/${encodeURIComponent(sessionId)}/events`;
  await ok(
    http(base, { ...owner, ...agent }, 'POST', events, { event_type: 'user_message', content: words.owner }),
    201,
    "the owner's turn",
  );
  const conversation = await kaosConversation(base, owner, agent['x-kaos-agent'], sessionId);
  await share(base, owner, conversation, member.id);
  // The member's turn, a tool call and the reply they record: each event that speaks is theirs.
  await ok(
    http(base, { ...member.headers, ...agent }, 'POST', events, [
      { event_type: 'user_message', content: words.member },
      { event_type: 'tool_call', content: { tool: 'calc' } },
      { event_type: 'agent_response', content: words.memberAnswer },
    ]),
    201,
    "the member's turn",
  );
  return conversation;
}

/** Bob's turn in alice's shared KAOS session is bob's: every view says so, and his own export holds it. */
async function kaosTurnsAreTheirWriters(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const words = { owner: `${prefix} alice asks`, member: `${prefix} bob asks`, memberAnswer: `${prefix} bob notes` };
  const conversation = await sharedKaosSession(base, who.alice, { headers: who.bob, id: 'bob' }, prefix, words);
  assert.deepEqual(
    await senders(base, who.alice, conversation),
    { [words.owner]: 'alice', [words.member]: 'bob', [words.memberAnswer]: 'bob' },
    "each turn is stored as its writer's (EverMemOS list)",
  );
  const bobs = await ok(
    http(base, who.alice, 'GET', `/api/v1/memories?group_id=${encodeURIComponent(conversation)}&user_id=bob`),
    200,
    "bob's messages",
  );
  assert.deepEqual(
    (bobs.body.result.memories as Array<{ content: string }>).map((m) => m.content).sort(),
    [words.member, words.memberAnswer].sort(),
    "a filter by bob finds bob's turns",
  );
  const exported = await ok(http(base, who.bob, 'GET', '/v1/me/export'), 200, "bob's export");
  const records = exported.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { kind: string; conversationId?: string; content?: string; senderId?: string });
  const mine = records.filter((r) => r.kind === 'message' && r.conversationId === conversation);
  assert.deepEqual(
    mine.map((r) => [r.content, r.senderId]).sort(),
    [
      [words.member, 'bob'],
      [words.memberAnswer, 'bob'],
    ].sort(),
    "bob's export holds his turns in alice's session, and nothing of hers",
  );
}

/** Mallory, alice's writer, cannot put words in alice's mouth through ARK; her role-only turn is hers. */
async function arkNamesAreTheWriters(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const session = `${prefix}-ark`;
  const post = (as: Headers, messages: unknown[]) =>
    http(base, as, 'POST', '/messages', { session_id: session, messages });
  await ok(post(who.alice, [{ role: 'user', content: `${prefix} alice opens` }]), 200, "alice's role-only turn");
  await share(base, who.alice, session, 'mallory');

  const forged = `${prefix} I, alice, transfer everything to mallory`;
  const refused = await post(who.mallory, [
    { role: 'user', content: `${prefix} mallory speaks` },
    { role: 'user', name: 'alice', content: forged },
  ]);
  assert.equal(refused.status, 403, `mallory writing as alice: ${refused.text}`);
  assert.deepEqual(Object.keys(refused.body), ['error', 'code'], "ARK's error shape");
  assert.equal(refused.body.code, 'FORBIDDEN');
  assert.match(refused.body.error, /messages\[1\]\.name/);

  await ok(post(who.mallory, [{ role: 'user', content: `${prefix} mallory asks` }]), 200, "mallory's role-only turn");
  await ok(
    post(who.mallory, [{ role: 'assistant', name: 'mallory', content: `${prefix} mallory signs` }]),
    200,
    'a name that is her own',
  );
  await ok(
    post(who.agent, [{ role: 'user', name: 'alice', content: `${prefix} relayed for alice` }]),
    200,
    'an agent relays for anyone',
  );
  assert.deepEqual(
    await senders(base, who.alice, session),
    {
      [`${prefix} alice opens`]: 'alice',
      [`${prefix} mallory asks`]: 'mallory',
      [`${prefix} mallory signs`]: 'mallory',
      [`${prefix} relayed for alice`]: 'alice',
    },
    'nothing of the refused batch is stored; each role-only turn is its writer',
  );
  // ARK reads back what its clients sent: no name where none was given.
  const listed = await ok(http(base, who.alice, 'GET', `/messages?session_id=${session}`), 200, 'ARK list');
  assert.deepEqual(
    (listed.body.messages as Array<{ message: Record<string, unknown> }>).map((m) => m.message['name'] ?? null),
    [null, null, 'mallory', 'alice'],
  );
}

/** The same refusal in the other two families that name a sender. */
async function everyFamilyRefuses(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const group = `${prefix}-group`;
  const say = (sender: string, id: string) => ({
    group_id: group,
    message_id: id,
    create_time: '2026-01-15T10:00:00Z',
    sender,
    content: `${prefix} ${id}`,
  });
  await ok(http(base, who.alice, 'POST', '/api/v1/memories', say('alice', 'm1')), 200, 'alice in her group');
  await share(base, who.alice, group, 'mallory');
  const evermemos = await http(base, who.mallory, 'POST', '/api/v1/memories', say('alice', 'm2'));
  assert.equal(evermemos.status, 403, `EverMemOS sender alice from mallory: ${evermemos.text}`);
  const ms = await http(base, who.mallory, 'POST', `/v1/conversations/${group}/messages`, {
    userId: 'alice',
    content: [{ type: 'text', text: `${prefix} m3` }],
  });
  assert.equal(ms.status, 403, `memory-service userId alice from mallory: ${ms.text}`);
  const kaos = await http(base, { ...who.mallory, 'x-kaos-agent': `${prefix}-agent` }, 'POST', '/memory/sessions', {
    app_name: 'app',
    user_id: 'alice',
  });
  assert.equal(kaos.status, 403, `a KAOS session for alice from mallory: ${kaos.text}`);
  assert.deepEqual(await senders(base, who.alice, group), { [`${prefix} m1`]: 'alice' });
}

/**
 * Erasure follows the writer: ann hands her KAOS session to dot and is erased; ben's turn in it
 * stays (it was his), and only ann's goes. People of their own, so no other check loses data.
 */
async function erasureSparesOthersTurns(base: string, prefix: string): Promise<void> {
  const [ann, ben, dot] = ['ann', 'ben', 'dot'].map((n) => `${prefix}-${n}`) as [string, string, string];
  const as = {
    ann: bearer(await userToken(ann)),
    ben: bearer(await userToken(ben)),
    dot: bearer(await userToken(dot)),
  };
  const words = { owner: `${prefix} ann asks`, member: `${prefix} ben asks`, memberAnswer: `${prefix} ben notes` };
  const conversation = await sharedKaosSession(base, as.ann, { headers: as.ben, id: ben }, `${prefix}-e`, words);
  await share(base, as.ann, conversation, dot);
  const offer = await ok(
    http(base, as.ann, 'POST', '/v1/ownership-transfers', { conversationId: conversation, newOwnerUserId: dot }),
    201,
    'offer',
  );
  await ok(http(base, as.dot, 'POST', `/v1/ownership-transfers/${offer.body.id}/accept`), 204, 'dot accepts');
  const job = await ok(http(base, as.ann, 'POST', '/v1/me/erasure', {}), 202, "ann's erasure");
  await waitFor(
    "ann's erasure completed",
    async () => {
      const r = await http(base, as.ann, 'GET', `/v1/me/erasures/${job.body.id}`);
      assert.notEqual(r.body?.status, 'failed', r.text);
      return r.body?.status === 'completed' ? true : undefined;
    },
    60_000,
  );
  assert.deepEqual(
    await senders(base, as.dot, conversation),
    { [words.member]: ben, [words.memberAnswer]: ben },
    "ann's erasure took her turn and left ben's",
  );
}

export const checkSenderIsTheActor: SecurityCheck = async (base, who, prefix) => {
  await kaosTurnsAreTheirWriters(base, who, prefix);
  await arkNamesAreTheWriters(base, who, prefix);
  await everyFamilyRefuses(base, who, prefix);
  await erasureSparesOthersTurns(base, prefix);
};
