import assert from 'node:assert/strict';
import { kaosClient, type Headers } from './kaos-contract.js';
import type { SecurityCallers, SecurityCheck } from './security-callers.js';

/**
 * Issue 49, items 1 and 2: KAOS's caps are the server's, and a cap never removes what the caller
 * could not delete itself. The security servers run with these limits: few enough sessions that
 * going past the cap takes a dozen creates. Each person's share of an agent is the sessions they
 * manage, so other checks' people keep theirs.
 */
export const KAOS_CAPS = { sessions: 10, events: 500 } as const;
export const KAOS_CAPS_ENV = {
  MEMORY_MAX_SESSIONS: String(KAOS_CAPS.sessions),
  MEMORY_MAX_SESSION_EVENTS: String(KAOS_CAPS.events),
};

const LIMITS_OF_ONE = { 'x-kaos-max-sessions': '1', 'x-kaos-max-session-events': '1' };
const tool = (content: string) => ({ event_type: 'tool_call', content });

export const checkKaosCaps: SecurityCheck = async (base, who, prefix) => {
  await checkLimitsFromPeople(base, who, prefix);
  await checkSessionShares(base, who, prefix);
  await checkWriterAppends(base, who, prefix);
  await checkAgentLimitsBounded(base, who, prefix);
  await checkOtherRemovals(base, who, prefix);
};

/** Who may send KAOS's limits: a person's token never (403, nothing evicted or trimmed), an agent's key may. */
async function checkLimitsFromPeople(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  // alice and bob each own a session of the default agent.
  const alice = kaosClient(base, who.alice);
  const bob = kaosClient(base, who.bob);
  const aliceSession = await alice.create({ session_id: `${prefix}-alice` });
  const bobSession = await bob.create({ session_id: `${prefix}-bob` });
  await alice.add(aliceSession, [tool('one'), tool('two'), tool('three')]);

  // mallory creates four sessions with a cap of one.
  const mallory = kaosClient(base, { ...who.mallory, ...LIMITS_OF_ONE });
  for (const n of [1, 2, 3, 4]) {
    const created = await mallory.call('POST', '/memory/sessions', { session_id: `${prefix}-mallory-${n}` });
    assert.equal(
      created.status,
      403,
      `mallory's create ${n} with X-KAOS-Max-Sessions: ${JSON.stringify(created.body)}`,
    );
    assert.deepEqual(Object.keys(created.body), ['detail', 'code']);
    assert.equal(created.body.code, 'FORBIDDEN');
  }
  for (const [name, k, id] of [
    ['alice', alice, aliceSession],
    ['bob', bob, bobSession],
  ] as const) {
    const read = await k.call('GET', `/memory/sessions/${id}`);
    assert.equal(read.status, 200, `${name}'s session after mallory's capped creates: ${JSON.stringify(read.body)}`);
  }

  // The matrix of client-sent limits: every person is refused, on their own session too; an agent is
  // not. A stranger's (or an admin's: the role reads, it does not write) append is answered 404
  // first: access is checked before anything of the call, so the limits never come into it.
  const withLimits = (h: Headers) => kaosClient(base, { ...h, ...LIMITS_OF_ONE });
  const rows: ReadonlyArray<readonly [string, Headers, number]> = [
    ['alice, the owner', who.alice, 403],
    ['mallory, a stranger', who.mallory, 404],
    ['an admin, a person (reads every session, writes none of them)', who.admin, 404],
    ['an agent', who.agent, 201],
  ];
  for (const [name, headers, status] of rows) {
    const answer = await withLimits(headers).call('POST', `/memory/sessions/${aliceSession}/events`, tool(name));
    assert.equal(answer.status, status, `${name} appending with limits: ${JSON.stringify(answer.body)}`);
  }
  // (the agent's append with a cap of one kept one event: an agent manages every session of its agent)
  assert.equal((await alice.events(aliceSession)).length, 1);
}

/** Past the server's cap, a person's create evicts only their own sessions: their share of the agent. */
async function checkSessionShares(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const agent = `${prefix}-shares`;
  const alice = kaosClient(base, who.alice, agent);
  const bob = kaosClient(base, who.bob, agent);
  const mallory = kaosClient(base, who.mallory, agent);
  const aliceSession = await alice.create({ session_id: 'alice' });
  const bobSession = await bob.create({ session_id: 'bob' });
  for (let n = 0; n <= KAOS_CAPS.sessions; n++) await mallory.create({ session_id: `mallory-${n}` });
  assert.equal((await alice.call('GET', `/memory/sessions/${aliceSession}`)).status, 200, "alice's session stays");
  assert.equal((await bob.call('GET', `/memory/sessions/${bobSession}`)).status, 200, "bob's session stays");
  // The cap still holds for mallory: her least recently updated session made room for her last.
  const hers = await mallory.sessions();
  assert.equal(hers.length, KAOS_CAPS.sessions);
  assert.ok(!hers.includes('mallory-0') && hers.includes(`mallory-${KAOS_CAPS.sessions}`), hers.join());
}

/** The owner shares a session's conversation with bob as a writer (memory-service memberships). */
async function shareWithBob(owner: ReturnType<typeof kaosClient>, session: string): Promise<void> {
  const listed = await owner.ok('GET', `/v1/console/conversations?family=kaos&group=${encodeURIComponent(session)}`);
  const conversation = (listed.data as Array<{ id: string; session: { sessionId: string } }>).find(
    (c) => c.session.sessionId === session,
  )!.id;
  await owner.ok('POST', `/v1/conversations/${conversation}/memberships`, { userId: 'bob', accessLevel: 'writer' });
}

/** A writer of a shared session cannot make its event cap drop the owner's events. */
async function checkWriterAppends(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const alice = kaosClient(base, who.alice);
  const session = await alice.create({ session_id: `${prefix}-shared` });
  await alice.add(session, [tool('first'), tool('second'), tool('third')]);
  await shareWithBob(alice, session);

  const bob = kaosClient(base, who.bob);
  const capped = await kaosClient(base, { ...who.bob, ...LIMITS_OF_ONE }).call(
    'POST',
    `/memory/sessions/${session}/events`,
    tool("bob's capped note"),
  );
  assert.equal(capped.status, 403, JSON.stringify(capped.body));
  const contents = async () => (await alice.events(session)).map((e) => e.content);
  assert.deepEqual(await contents(), ['first', 'second', 'third'], "bob's capped append left alice's events");
  await bob.add(session, tool("bob's note")); // within the cap a writer appends as before

  // At the server's own cap, an append of bob's would drop alice's oldest: refused, nothing stored.
  const fill = [...Array(KAOS_CAPS.events - 4).keys()].map((i) => tool(`fill ${i}`));
  await alice.add(session, fill);
  const full = await contents();
  assert.equal(full.length, KAOS_CAPS.events);
  const over = await bob.call('POST', `/memory/sessions/${session}/events`, tool("bob's note past the cap"));
  assert.equal(over.status, 403, JSON.stringify(over.body));
  assert.deepEqual(Object.keys(over.body), ['detail', 'code']);
  assert.deepEqual(await contents(), full, "bob's append past the cap dropped nothing");
  // The owner manages the session: her append keeps it within the cap, as KAOS's deque does.
  await alice.add(session, tool('last'));
  assert.deepEqual(await contents(), [...full.slice(1), 'last']);
}

/** An agent's limits count, but never above the server's. */
async function checkAgentLimitsBounded(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const agent = kaosClient(
    base,
    { ...who.agent, 'x-kaos-max-sessions': '999999', 'x-kaos-max-session-events': '999999' },
    `${prefix}-bounded`,
  );
  for (let n = 0; n <= KAOS_CAPS.sessions; n++) await agent.create({ user_id: 'u', session_id: `s${n}` });
  assert.equal((await agent.sessions()).length, KAOS_CAPS.sessions, "MEMORY_MAX_SESSIONS bounds an agent's limit");
  await agent.add(
    's1',
    [...Array(KAOS_CAPS.events + 1).keys()].map((i) => tool(`e${i}`)),
  );
  assert.equal(
    (await agent.events('s1')).length,
    KAOS_CAPS.events,
    "MEMORY_MAX_SESSION_EVENTS bounds an agent's limit",
  );
}

/**
 * KAOS's other routes that remove or start over sessions, from a writer of a shared session and a
 * stranger: cleanup, delete and create with the id in use leave the owner's session as it was.
 */
async function checkOtherRemovals(base: string, who: SecurityCallers, prefix: string): Promise<void> {
  const agent = `${prefix}-removals`;
  const alice = kaosClient(base, who.alice, agent);
  const session = await alice.create({ session_id: 'kept' });
  await alice.add(session, tool('kept'));
  await shareWithBob(alice, session);
  for (const [name, k] of [
    ['bob, a writer', kaosClient(base, who.bob, agent)],
    ['mallory, a stranger', kaosClient(base, who.mallory, agent)],
  ] as const) {
    assert.deepEqual(await k.ok('POST', '/memory/cleanup', { max_age_hours: 0 }, 200), { cleaned: 0 }, name);
    assert.deepEqual(await k.ok('DELETE', `/memory/sessions/${session}`), { deleted: false }, name);
    const again = await k.call('POST', '/memory/sessions', { session_id: session });
    assert.equal(again.status, 409, `${name} creating the id in use: ${JSON.stringify(again.body)}`);
  }
  assert.deepEqual(
    (await alice.events(session)).map((e) => e.content),
    ['kept'],
  );
}
