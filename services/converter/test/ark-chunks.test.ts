import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { liveChannelOf, type Actor, type ArkInput } from '@memstream/schemas';
import { listStreamChunks } from '@memstream/store';
import { handleArkBatch } from '../src/handlers/ark-messages.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

async function converter(t: TestContext) {
  const { deps, outcomeOf } = await handlerDeps(t);
  return { store: deps.store, fanout: deps.fanout, handle: handleArkBatch(deps), outcomeOf };
}

const relay = (session: string, chunks: Record<string, unknown>[], actor?: Actor): ArkInput => ({
  id: randomUUID(),
  type: 'ark.stream.chunks',
  occurred_at: new Date().toISOString(),
  data: { session_id: session, chunks },
  ...(actor ? { actor } : {}),
});

test('relayed chunks are kept once, numbered in order and sent live; a redelivered relay is sent again with the same numbers', async (t) => {
  const { store, fanout, handle, outcomeOf } = await converter(t);
  const heard: number[] = [];
  const previous: Array<number | null> = [];
  await fanout.subscribe(liveChannelOf('s1'), (m) => {
    const event = JSON.parse(m) as { chunk_seq: number; prev_chunk_seq: number | null };
    heard.push(event.chunk_seq);
    previous.push(event.prev_chunk_seq);
  });
  await handle([relay('s0', [{ delta: 'elsewhere' }])], ctx); // another session's number comes first
  const first = relay('s1', [{ delta: 'to' }, { delta: 'ken' }]);
  await handle([first, relay('s1', [{ delta: 's' }])], ctx);
  const kept = await listStreamChunks(store, 's1');
  assert.deepEqual(
    kept.map((c) => c.chunk['delta']),
    ['to', 'ken', 's'],
  );
  const seqs = kept.map((c) => c.chunk_seq);
  assert.deepEqual(heard, seqs);
  assert.deepEqual(previous, [null, seqs[0], seqs[1]], "each names the session's chunk before it");

  await handle([first], ctx); // redelivered
  assert.equal((await listStreamChunks(store, 's1')).length, 3, 'kept once');
  assert.deepEqual(heard.slice(3), seqs.slice(0, 2), 'the same numbers again, which streams drop');
  assert.deepEqual(previous.slice(3), [null, seqs[0]], 'and the same chunks before them');
  assert.deepEqual((await outcomeOf(first))?.result, { chunk_seqs: seqs.slice(0, 2) });
});

test('a person relays to a session they may write to, or claims a new one; not to a session someone else owns', async (t) => {
  const { store, handle, outcomeOf } = await converter(t);
  const claim = relay('new-session', [{ delta: 'hi' }], { kind: 'user', id: 'ann' });
  await handle([claim], ctx);
  assert.equal((await outcomeOf(claim))?.status, 'stored');
  const owner = await store.query<{ access_level: string }>(
    `SELECT access_level FROM conversation_memberships WHERE group_id = 'new-session' AND user_id = 'ann'`,
  );
  assert.deepEqual(owner.rows, [{ access_level: 'owner' }]);

  const intruder = relay('new-session', [{ delta: 'boo' }], { kind: 'user', id: 'bob' });
  await handle([intruder], ctx);
  assert.deepEqual(
    [(await outcomeOf(intruder))?.status, (await outcomeOf(intruder))?.error_code],
    ['failed', 'FORBIDDEN'],
  );
  assert.equal((await listStreamChunks(store, 'new-session')).length, 1);
});
