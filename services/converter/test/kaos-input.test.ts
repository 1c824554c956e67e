import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { conversationHarness } from './conversation-harness.js';
import { kaosSessionKey, type ConversationInput, type KaosEvent } from '@memstream/schemas';
import { findRequestOutcome, listKaosSessions } from '@memstream/store';

const LIMITS = { max_sessions: 5, max_session_events: 4 };

const envelope = (type: string, data: Record<string, unknown>) =>
  ({ id: randomUUID(), type, occurred_at: new Date().toISOString(), data }) as ConversationInput;
const created = (session: string, extra: Record<string, unknown> = {}) =>
  envelope('kaos.session.created', {
    group_id: kaosSessionKey('a', session),
    agent: 'a',
    session_id: session,
    app_name: 'app',
    user_id: 'u',
    get_or_create: false,
    owner_user_id: null,
    ...LIMITS,
    ...extra,
  });
const appended = (session: string, events: KaosEvent[]) =>
  envelope('kaos.events.appended', {
    group_id: kaosSessionKey('a', session),
    agent: 'a',
    session_id: session,
    events,
    ...LIMITS,
  });
const event = (type: KaosEvent['event_type'], content: unknown): KaosEvent => ({
  event_id: `event_${randomUUID().slice(0, 8)}`,
  timestamp: new Date().toISOString(),
  event_type: type,
  content,
  metadata: {},
});

test('a redelivered KAOS append stores its events and messages once; tool events are not messages', async (t) => {
  const { apply, count } = await conversationHarness(t);
  await apply(created('s'));
  const append = appended('s', [
    event('user_message', 'hi'),
    event('tool_call', { tool: 'calc' }),
    event('agent_response', 'hello'),
  ]);
  await apply(append);
  await apply(append);
  // the same events again in a new event (a client's retry of the call)
  await apply(appended('s', (append.data as { events: KaosEvent[] }).events));
  assert.equal(await count('SELECT count(*) AS n FROM kaos_events'), 3);
  assert.equal(await count(`SELECT count(*) AS n FROM messages WHERE source_api = 'kaos'`), 2);
  assert.equal(
    await count(
      `SELECT count(*) AS n FROM messages WHERE source_api = 'kaos' AND role = 'assistant' AND sender_id = 'a'`,
    ),
    1,
  );
});

test('an append to a missing session is refused and stays refused when the session appears later', async (t) => {
  const { store, apply, count } = await conversationHarness(t);
  const early = appended('late', [event('user_message', 'too early')]);
  await apply(early);
  assert.equal((await findRequestOutcome(store, early.id))?.error_code, 'RESOURCE_NOT_FOUND');
  await apply(created('late'));
  await apply(early);
  assert.equal(await count('SELECT count(*) AS n FROM kaos_events'), 0);
});

test('creating a session id in use starts it over in a new conversation; the old one is deleted in every family', async (t) => {
  const { apply, count, store } = await conversationHarness(t);
  await apply(created('s'));
  await apply(appended('s', [event('user_message', 'first life')]));
  await apply(created('s'));
  assert.equal(await count('SELECT count(*) AS n FROM kaos_events'), 0);
  assert.equal(
    await count(`SELECT count(*) AS n FROM conversations WHERE source_api = 'kaos' AND deleted_at IS NOT NULL`),
    1,
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM conversations WHERE source_api = 'kaos' AND deleted_at IS NULL`),
    1,
  );
  assert.deepEqual(await listKaosSessions(store, 'a', {}), ['s']);
});

test('concurrent creations never leave more sessions than the limit, and the event cap keeps the latest', async (t) => {
  const { apply, count, store } = await conversationHarness(t);
  // Handlers of different partitions apply at once: the agent's lock makes them take turns.
  await Promise.all([...Array(20).keys()].map((i) => apply(created(`s${i}`))));
  const left = await listKaosSessions(store, 'a', {});
  assert.ok(
    left.length <= LIMITS.max_sessions && left.length >= LIMITS.max_sessions - 1,
    `sessions left: ${left.length}`,
  );

  const s = left[0]!;
  await apply(
    appended(
      s,
      [...Array(7).keys()].map((i) => event('user_message', `m${i}`)),
    ),
  );
  const kept = await store.query<{ content: string }>(
    `SELECT e.content #>> '{}' AS content FROM kaos_events e JOIN kaos_sessions k USING (conversation_id) WHERE k.session_id = $1 ORDER BY seq`,
    [s],
  );
  assert.deepEqual(
    kept.rows.map((r) => r.content),
    ['m3', 'm4', 'm5', 'm6'],
  );
  assert.equal(
    await count(`SELECT count(*) AS n FROM conversations WHERE source_api = 'kaos' AND deleted_at IS NULL`),
    left.length,
  );
});

test('an append redelivered after its session was started over stays in the life it was applied to', async (t) => {
  const { apply, count } = await conversationHarness(t);
  await apply(created('s'));
  const first = appended('s', [event('user_message', 'first life')]);
  const restart = created('s');
  await apply(first, restart);
  // The converter died before committing past both: Kafka hands them over again, in order.
  await apply(first, restart);
  assert.equal(await count('SELECT count(*) AS n FROM kaos_events'), 0, 'the new life has no event');
  assert.equal(
    await count(
      `SELECT count(*) AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.deleted_at IS NULL`,
    ),
    0,
    'and no message',
  );
});
