import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { liveChannelOf, type Actor, type ArkInput } from '@memstream/schemas';
import { setMembership } from '@memstream/store';
import { handleArkBatch } from '../src/handlers/ark-messages.js';
import { handlerContext as ctx, handlerDeps } from './handler-harness.js';

async function converter(t: TestContext) {
  const { deps, outcomeOf } = await handlerDeps(t);
  return { store: deps.store, fanout: deps.fanout, handle: handleArkBatch(deps), outcomeOf };
}

const event = <T extends ArkInput['type']>(type: T, data: Extract<ArkInput, { type: T }>['data'], actor?: Actor) =>
  ({ id: randomUUID(), type, occurred_at: new Date().toISOString(), data, ...(actor ? { actor } : {}) }) as Extract<
    ArkInput,
    { type: T }
  >;

test('a completion is applied after the messages sent before it, once: redelivered, it keeps its first answer', async (t) => {
  const { fanout, handle, outcomeOf } = await converter(t);
  const heard: string[] = [];
  await fanout.subscribe(liveChannelOf('s1'), (m) => heard.push((JSON.parse(m) as { type: string }).type));

  const said = event('ark.messages.received', { session_id: 's1', messages: [{ role: 'user', content: 'hello' }] });
  const done = event('ark.session.completed', { session_id: 's1' });
  await handle([said, done], ctx);
  assert.deepEqual(heard, ['messages', 'complete'], 'the streams get the messages, then the end');
  assert.deepEqual((await outcomeOf(done))?.result, { status: 'completed' });

  await handle([done], ctx); // Kafka redelivers it
  assert.deepEqual((await outcomeOf(done))?.result, { status: 'completed' }, 'the first answer stands');
  const again = event('ark.session.completed', { session_id: 's1' });
  await handle([again], ctx);
  assert.deepEqual((await outcomeOf(again))?.result, { status: 'already_completed' });
  assert.deepEqual(
    heard.slice(2),
    ['complete', 'complete'],
    'announced each time, so a stream that missed the first notice ends',
  );
});

test('a completion of an unknown session, or by a person who may not write to it, is refused and ends nothing', async (t) => {
  const { store, fanout, handle, outcomeOf } = await converter(t);
  await handle(
    [event('ark.messages.received', { session_id: 's2', messages: [{ role: 'user', content: 'hi' }] })],
    ctx,
  );
  await setMembership(store, 's2', 'rita', 'reader');
  await setMembership(store, 's2', 'walt', 'writer');
  const heard: string[] = [];
  await fanout.subscribe(liveChannelOf('s2'), (m) => heard.push(m));

  const unknown = event('ark.session.completed', { session_id: 'nobody-knows' });
  const reader = event('ark.session.completed', { session_id: 's2' }, { kind: 'user', id: 'rita' });
  const stranger = event('ark.session.completed', { session_id: 's2' }, { kind: 'user', id: 'mallory' });
  await handle([unknown, reader, stranger], ctx);
  assert.deepEqual(
    [
      (await outcomeOf(unknown))?.error_code,
      (await outcomeOf(reader))?.error_code,
      (await outcomeOf(stranger))?.error_code,
    ],
    ['RESOURCE_NOT_FOUND', 'FORBIDDEN', 'RESOURCE_NOT_FOUND'],
  );
  assert.deepEqual(heard, [], 'no stream was ended');

  const writer = event('ark.session.completed', { session_id: 's2' }, { kind: 'user', id: 'walt' });
  await handle([writer], ctx);
  assert.deepEqual(
    [(await outcomeOf(writer))?.status, (await outcomeOf(writer))?.result],
    ['stored', { status: 'completed' }],
  );
  assert.equal(heard.length, 1);
});
