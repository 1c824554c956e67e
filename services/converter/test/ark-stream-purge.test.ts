import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { arkSessionState, listStreamChunks, setMembership } from '@memstream/store';
import type { Actor, ArkInput } from '@memstream/schemas';
import { handleArkBatch } from '../src/handlers/ark-messages.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

const event = <T extends ArkInput['type']>(type: T, data: Extract<ArkInput, { type: T }>['data'], actor?: Actor) =>
  ({ id: randomUUID(), type, occurred_at: new Date().toISOString(), data, ...(actor ? { actor } : {}) }) as Extract<
    ArkInput,
    { type: T }
  >;
const relayed = (sessionId: string, word: string) =>
  event('ark.stream.chunks', { session_id: sessionId, chunks: [{ choices: [{ delta: { content: word } }] }] });
const words = async (store: Parameters<typeof listStreamChunks>[0], sessionId: string) =>
  (await listStreamChunks(store, sessionId)).map(
    (c) => (c.chunk['choices'] as { delta: { content: string } }[])[0]!.delta.content,
  );

test('a stream purge takes what was relayed before it, completion included, and spares what came after', async (t) => {
  const { deps, outcomeOf } = await handlerDeps(t);
  const handle = handleArkBatch(deps);
  await handle([relayed('q1', 'old'), event('ark.session.completed', { session_id: 'q1' })], ctx);
  const purge = event('ark.stream.purged', { session_id: 'q1' });
  // One flush holding a relay, the purge and a relay after it: the order sent is the order applied.
  await handle([relayed('q1', 'older'), purge, relayed('q1', 'new')], ctx);
  assert.deepEqual(await words(deps.store, 'q1'), ['new']);
  assert.equal((await arkSessionState(deps.store, 'q1')).completed, false, 'the completion went with the stream');
  assert.deepEqual((await outcomeOf(purge))?.result, { deleted_chunks: 2 });

  await handle([purge], ctx); // Kafka redelivers it
  assert.deepEqual(await words(deps.store, 'q1'), ['new'], 'a redelivered purge takes nothing relayed after it');
});

test('a person purges only a stream they manage: a writer is refused, a stranger finds nothing', async (t) => {
  const { deps, outcomeOf } = await handlerDeps(t);
  const handle = handleArkBatch(deps);
  await handle([relayed('q2', 'kept')], ctx);
  await setMembership(deps.store, 'q2', 'walt', 'writer');
  await setMembership(deps.store, 'q2', 'mia', 'manager');
  const writer = event('ark.stream.purged', { session_id: 'q2' }, { kind: 'user', id: 'walt' });
  const stranger = event('ark.stream.purged', { session_id: 'q2' }, { kind: 'user', id: 'mallory' });
  await handle([writer, stranger], ctx);
  assert.deepEqual(
    [(await outcomeOf(writer))?.error_code, (await outcomeOf(stranger))?.error_code],
    ['FORBIDDEN', 'RESOURCE_NOT_FOUND'],
  );
  assert.deepEqual(await words(deps.store, 'q2'), ['kept']);

  const manager = event('ark.stream.purged', { session_id: 'q2' }, { kind: 'user', id: 'mia' });
  await handle([manager], ctx);
  assert.equal((await outcomeOf(manager))?.status, 'stored');
  assert.deepEqual(await words(deps.store, 'q2'), []);
});
