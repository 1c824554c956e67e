import assert from 'node:assert/strict';
import type { ArkStreamEvent, MemstreamClient } from '@memstream/client';
import { rejectsWith } from './evermemos-contract.js';

const contentOf = (e: ArkStreamEvent | undefined): unknown =>
  e?.type === 'chunk' ? (e.chunk['choices'] as { delta?: { content?: unknown } }[])[0]?.delta?.content : e?.type;

/**
 * ARK through the client: a stream read as an async iterator replays the session, turns live,
 * carries a relayed chunk and ends when the session is completed; a reader may wait for a
 * session that does not exist yet, and leave by breaking out of its loop.
 */
export async function checkArk(client: MemstreamClient, label: string): Promise<void> {
  const session = `client-${label}-ark`;
  const stored = await client.ark.postMessages({
    session_id: session,
    query_id: 'q1',
    messages: [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi there' },
    ],
  });
  assert.deepEqual([stored.status, stored.count], ['ok', 2]);
  const page = await client.ark.listMessages({ session_id: session });
  assert.deepEqual(
    page.messages.map((m) => m.message['content']),
    ['hello', 'hi there'],
  );
  assert.ok((await client.ark.sessions()).includes(session));

  const stream = client.ark.stream(session, { fromBeginning: true });
  const next = async () => (await stream.next()).value as ArkStreamEvent | undefined;
  assert.deepEqual(
    [contentOf(await next()), contentOf(await next()), contentOf(await next())],
    ['hello', 'hi there', 'live'],
  );
  assert.equal(
    (
      await client.ark.relayChunks(session, [
        { id: session, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'tok' } }] },
      ])
    ).chunks,
    1,
  );
  assert.equal(contentOf(await next()), 'tok');
  assert.equal((await client.ark.completeSession(session)).status, 'completed');
  const rest: ArkStreamEvent[] = [];
  for await (const event of stream) rest.push(event);
  assert.equal(rest.at(-1)?.type, 'end', 'completion ends the stream');
  assert.equal((await client.ark.completeStream(session)).status, 'already_completed');

  const later = `${session}-later`;
  const waiting = client.ark.stream(later, { fromBeginning: true, waitForSession: '5m' });
  const first = waiting.next();
  await client.ark.postMessages({ session_id: later, messages: [{ role: 'user', content: 'here now' }] });
  assert.equal(contentOf((await first).value as ArkStreamEvent), 'here now');
  await waiting.return(undefined);

  await rejectsWith(client.ark.postMessages({ session_id: session, messages: [] }), {
    family: 'ark',
    status: 400,
    code: 'INVALID_PARAMETER',
  });
  await rejectsWith(client.ark.completeSession(`${session}-none`), {
    family: 'ark',
    status: 404,
    code: 'RESOURCE_NOT_FOUND',
  });
  // Removed again: an ARK session is a conversation like any other.
  assert.equal((await client.evermemos.delete({ group_id: session })).result.deleted_messages, 2);
  assert.equal((await client.evermemos.delete({ group_id: later })).result.deleted_messages, 1);
}
