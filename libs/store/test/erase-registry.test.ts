import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERASURE_HELD_BACK } from '../src/lifecycle/erase-person.js';

// The final check of an erasure locks these tables in SHARE mode, one after the other, while
// writers take ROW EXCLUSIVE locks in the order the write path touches them. The same order on both
// sides is what keeps the two from waiting on each other in a cycle: a conversation's row before
// its messages, memberships and KAOS sessions after them, then the group metadata.
test("the erasure's final check holds back the tables a person's data can grow in, in the write path's order", () => {
  assert.deepEqual(ERASURE_HELD_BACK, [
    'conversations',
    'messages',
    'conversation_memberships',
    'kaos_sessions',
    'conversation_meta',
    'conversation_meta_default',
  ]);
});
