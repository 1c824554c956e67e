import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendKaosEvents, findKaosSession, insertKaosSession, latestKaosEvents } from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { refuseLargeRead } from '../src/families/kaos/event-json.js';

test("a read of a session's events past its bytes of JSON is refused before any event is read, naming event_types", async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  await insertKaosSession(store, { agent: 'a', sessionId: 's', conversationId: 'kaos_s', appName: 'app', userId: 'u' });
  const session = (await findKaosSession(store, 'a', 's'))!;
  const event = (id: string, type: string, content: string) => ({
    event_id: id,
    timestamp: '2026-01-01T00:00:00Z',
    event_type: type,
    content: null,
    content_json: content,
    metadata: {},
    metadata_json: '{}',
  });
  await appendKaosEvents(
    store,
    session,
    [event('e1', 'tool_result', `"${'x'.repeat(1000)}"`), event('e2', 'user_message', '"hi"')],
    { maxEvents: 10, mayDrop: true },
  );
  // 1002 + 2 bytes of the tool result, 4 + 2 of the message
  await refuseLargeRead(store, 'kaos_s', undefined, 1010);
  await assert.rejects(refuseLargeRead(store, 'kaos_s', undefined, 1009), {
    statusCode: 413,
    details: { field: 'event_types' },
  });
  await refuseLargeRead(store, 'kaos_s', ['user_message'], 6);
});

// GET /memory/events reads across an agent's sessions, all of them with limit=0: its slice is
// measured before it is read, as a session's read is.
test("a read of an agent's latest events past its bytes of JSON is measured and refused, the slice within it read", async (t) => {
  const store = await migratedPglite();
  t.after(() => store.close());
  await insertKaosSession(store, { agent: 'a', sessionId: 's', conversationId: 'kaos_s', appName: 'app', userId: 'u' });
  const session = (await findKaosSession(store, 'a', 's'))!;
  const event = (id: string, content: string) => ({
    event_id: id,
    timestamp: '2026-01-01T00:00:00Z',
    event_type: 'tool_result',
    content: null,
    content_json: content,
    metadata: {},
    metadata_json: '{}',
  });
  await appendKaosEvents(store, session, [event('e1', `"${'x'.repeat(1000)}"`), event('e2', '"hi"')], {
    maxEvents: 10,
    mayDrop: true,
  });
  // 1002 + 2 bytes of e1, 4 + 2 of e2
  assert.deepEqual(await latestKaosEvents(store, 'a', {}, { skip: 0, maxBytes: 1009 }), { tooLarge: 1010 });
  const all = await latestKaosEvents(store, 'a', {}, { skip: 0, maxBytes: 1010 });
  assert.deepEqual(Array.isArray(all) && all.map((e) => e.event_id), ['e1', 'e2']);
  const last = await latestKaosEvents(store, 'a', {}, { latest: 1, maxBytes: 6 });
  assert.deepEqual(Array.isArray(last) && last.map((e) => e.event_id), ['e2']);
});
