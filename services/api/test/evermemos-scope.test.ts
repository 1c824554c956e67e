import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeleteMemoriesRequest, everMemOsScope } from '@memstream/schemas';

test('EverMemOS\'s scope words: "__all__" is any, "" and null are none, and no group with a user is their private chat', () => {
  assert.deepEqual(everMemOsScope('g1', 'ana'), { conversationId: 'g1', userId: 'ana' });
  assert.deepEqual(everMemOsScope('g1', '__all__'), { conversationId: 'g1', userId: undefined });
  assert.deepEqual(everMemOsScope('g1', ''), { conversationId: 'g1', userId: null });
  assert.deepEqual(everMemOsScope('g1', null), { conversationId: 'g1', userId: null });
  assert.deepEqual(everMemOsScope(undefined, 'ana'), { userId: 'ana' });
  assert.deepEqual(everMemOsScope('', 'ana'), { conversationId: 'private:ana', userId: 'ana' });
  assert.deepEqual(everMemOsScope(null, 'ana'), { conversationId: 'private:ana', userId: 'ana' });
  assert.ok('refusal' in everMemOsScope('', undefined), 'a private chat is named by its sender');
  assert.ok('refusal' in everMemOsScope('__all__', '__all__'));
  assert.ok('refusal' in everMemOsScope(undefined, '__all__'));
  assert.deepEqual(
    everMemOsScope(undefined, undefined),
    { userId: undefined },
    "naming neither is memstream's every readable group",
  );
  assert.ok('refusal' in everMemOsScope(undefined, undefined, true), "EverMemOS's own rule: name one");
});

test('a delete request leaves out null, "" and "__all__" filters and refuses keys it does not filter by', () => {
  assert.deepEqual(
    DeleteMemoriesRequest.parse({ event_id: '__all__', user_id: '', group_id: null, message_id: 'm1' }),
    { event_id: undefined, user_id: undefined, group_id: undefined, message_id: 'm1', sync_mode: true },
  );
  assert.equal(DeleteMemoriesRequest.safeParse({ group_id: 'g1', memory_id: 'x' }).success, false);
});
