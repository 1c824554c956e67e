import assert from 'node:assert/strict';
import type { MemstreamClient } from '@memstream/client';
import { rejectsWith } from './evermemos-contract.js';

/**
 * KAOS through the client, in the agent the client names: sessions, typed events (sent again with
 * the ids the client gave them, they add nothing), context, KAOS's own reads, stats, cleanup.
 */
export async function checkKaos(client: MemstreamClient, label: string): Promise<void> {
  const user = `user_${label}`;
  const created = await client.kaos.createSession({ app_name: 'agent', user_id: user });
  assert.equal(created.created, true);
  assert.match(created.session_id, /^session_[0-9a-f]{12}$/);
  const sid = created.session_id;
  const events = [
    { event_type: 'user_message' as const, content: 'What is 1+2?' },
    { event_type: 'tool_call' as const, content: { tool: 'calc', arguments: { a: 1, b: 2 } } },
    { event_type: 'agent_response' as const, content: 'The answer is 3' },
  ];
  const added = await client.kaos.addEvents(sid, events);
  assert.equal(added.added, 3);
  const stored = await client.kaos.sessionEvents(sid);
  assert.deepEqual(
    stored.events.map((e) => e.event_id),
    added.event_ids,
  );
  // What a retry after a lost answer sends: the same events with the same ids.
  await client.kaos.addEvents(
    sid,
    stored.events.map(({ event_type, content, event_id }) => ({ event_type, content, event_id })),
  );
  assert.equal((await client.kaos.sessionEvents(sid)).total, 3);

  assert.equal((await client.kaos.sessionEvents(sid, ['tool_call'])).total, 1);
  assert.equal((await client.kaos.context(sid)).context, 'User: What is 1+2?\nAssistant: The answer is 3');
  assert.equal((await client.kaos.getSession(sid)).user_id, user);
  assert.equal((await client.kaos.events({ limit: 2, session_id: sid })).events.length, 2);
  assert.deepEqual((await client.kaos.listSessions(user)).sessions, [sid]);
  assert.ok((await client.kaos.stats()).total_events >= 3);
  assert.equal((await client.kaos.cleanup(1_000_000)).cleaned, 0);

  assert.equal((await client.kaos.deleteSession(sid)).deleted, true);
  await rejectsWith(client.kaos.getSession(sid), { family: 'kaos', status: 404, code: 'RESOURCE_NOT_FOUND' });
  await rejectsWith(client.kaos.addEvents(sid, events[0]!), {
    family: 'kaos',
    status: 404,
    code: 'RESOURCE_NOT_FOUND',
  });
}
