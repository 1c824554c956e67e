import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { conversationHarness } from './conversation-harness.js';
import { kaosAgentKey, kaosSessionKey, type Actor, type ConversationInput, type KaosEvent } from '@memstream/schemas';
import type { AccessLevel } from '@memstream/schemas';
import { findRequestOutcome, listKaosSessions, setMembership } from '@memstream/store';

// KAOS's caps act only on what the caller could delete itself (issue 49): a person's create
// evicts within the sessions they manage, and an append that would drop a session's oldest
// events needs manager access to it.

const LIMITS = { max_sessions: 3, max_session_events: 3 };
const person = (id: string): Actor => ({ kind: 'user', id });

const envelope = (type: string, data: Record<string, unknown>, actor?: Actor) =>
  ({
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    data,
    ...(actor ? { actor } : {}),
  }) as ConversationInput;
const created = (session: string, owner: string | null, actor?: Actor) =>
  envelope(
    'kaos.session.created',
    {
      group_id: kaosSessionKey('a', session),
      agent: 'a',
      session_id: session,
      app_name: 'app',
      user_id: owner ?? 'u',
      get_or_create: false,
      owner_user_id: owner,
      ...LIMITS,
    },
    actor,
  );
const appended = (session: string, contents: string[], actor?: Actor) =>
  envelope(
    'kaos.events.appended',
    {
      group_id: kaosSessionKey('a', session),
      agent: 'a',
      session_id: session,
      events: contents.map(
        (content): KaosEvent => ({
          event_id: `event_${randomUUID().slice(0, 8)}`,
          timestamp: new Date().toISOString(),
          event_type: 'tool_call',
          content,
          metadata: {},
        }),
      ),
      ...LIMITS,
    },
    actor,
  );

test("a person's create past the cap evicts only sessions they manage; an agent's, the agent's oldest", async (t) => {
  const { apply, store } = await conversationHarness(t);
  await apply(created('alice-1', 'alice', person('alice')));
  await apply(created('bob-1', 'bob', person('bob')));
  for (const n of [1, 2, 3, 4]) await apply(created(`mallory-${n}`, 'mallory', person('mallory')));
  assert.deepEqual(await listKaosSessions(store, 'a', {}), ['alice-1', 'bob-1', 'mallory-2', 'mallory-3', 'mallory-4']);
  assert.deepEqual(await listKaosSessions(store, 'a', { userId: 'mallory' }), ['mallory-2', 'mallory-3', 'mallory-4']);
  // An agent may delete any session of its agent, so its cap counts them all and takes the
  // least recently updated tenth (at least one), as KAOS's does: alice's.
  await apply(created('agent-1', null));
  assert.deepEqual(await listKaosSessions(store, 'a', {}), ['bob-1', 'mallory-2', 'mallory-3', 'mallory-4', 'agent-1']);
});

test('an append that would drop events of a session the caller does not manage is refused and stores nothing', async (t) => {
  const { apply, store } = await conversationHarness(t);
  await apply(created('shared', 'alice', person('alice')));
  await apply(appended('shared', ['one', 'two'], person('alice')));
  const { rows } = await store.query<{ conversation_id: string }>(
    `SELECT conversation_id FROM kaos_sessions WHERE session_id = 'shared'`,
  );
  const share = (level: AccessLevel) => setMembership(store, rows[0]!.conversation_id, 'bob', level);
  const contents = async () =>
    (
      await store.query<{ c: string }>(
        `SELECT e.content #>> '{}' AS c FROM kaos_events e JOIN kaos_sessions s USING (conversation_id) ORDER BY e.seq`,
      )
    ).rows.map((r) => r.c);

  await share('writer');
  await apply(appended('shared', ['bob fits'], person('bob')));
  const over = appended('shared', ['bob past the cap'], person('bob'));
  await apply(over);
  assert.equal((await findRequestOutcome(store, over.id))?.error_code, 'FORBIDDEN');
  assert.deepEqual(await contents(), ['one', 'two', 'bob fits']);

  // A manager could delete the session, so the cap may drop its oldest for them; so for its owner.
  await share('manager');
  await apply(appended('shared', ['bob as manager'], person('bob')));
  await apply(appended('shared', ['alice'], person('alice')));
  assert.deepEqual(await contents(), ['bob fits', 'bob as manager', 'alice']);
});

test("a person's cleanup removes only sessions they manage, whatever its event names", async (t) => {
  const { apply, store } = await conversationHarness(t);
  await apply(created('alice-1', 'alice', person('alice')));
  await apply(created('bob-1', 'bob', person('bob')));
  const cleanup = (actor: Actor | undefined) =>
    envelope(
      'kaos.sessions.cleaned',
      {
        group_id: kaosAgentKey('a'),
        agent: 'a',
        updated_before: new Date(Date.now() + 60_000).toISOString(),
        visible_to: null,
      },
      actor,
    );
  await apply(cleanup(person('bob')));
  assert.deepEqual(await listKaosSessions(store, 'a', {}), ['alice-1']);
  await apply(cleanup(undefined));
  assert.deepEqual(await listKaosSessions(store, 'a', {}), []);
});
