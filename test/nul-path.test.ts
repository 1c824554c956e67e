import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupChatMessage } from '@memstream/schemas';

const message = {
  group_id: 'g1',
  message_id: 'm1',
  create_time: '2025-01-15T02:00:00Z',
  sender: 'alice',
  content: 'hello',
};

/** The issue a NUL raises: its message, and the path that names where it was found. */
function nulIssue(value: unknown) {
  const parsed = GroupChatMessage.safeParse(value);
  assert.equal(parsed.success, false, 'a NUL is refused');
  const issue = parsed.error!.issues.find((i) => /NUL character/.test(i.message));
  assert.ok(issue, JSON.stringify(parsed.error!.issues));
  return issue.path;
}

test('a NUL anywhere in a group-chat message is refused, and the issue names the field that holds it', () => {
  assert.equal(GroupChatMessage.safeParse(message).success, true);
  assert.deepEqual(nulIssue({ ...message, content: 'hel\u0000lo' }), ['content']);
  assert.deepEqual(nulIssue({ ...message, refer_list: ['a', 'b\u0000'] }), ['refer_list', '1']);
  assert.deepEqual(nulIssue({ ...message, refer_list: ['a', { message_id: 'x\u0000' }] }), [
    'refer_list',
    '1',
    'message_id',
  ]);
});
