import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { conversationHarness } from './conversation-harness.js';
import type { ConversationInput } from '@memstream/schemas';
import {
  createErasureJob,
  findMembership,
  findRequestOutcome,
  insertConversation,
  claimConversation,
  setMembership,
} from '@memstream/store';

const by = (actor: string) => ({
  id: randomUUID(),
  occurred_at: new Date().toISOString(),
  actor: { kind: 'user' as const, id: actor },
});

const membership = (group: string, userId: string, change: 'share' | 'update' | 'revoke'): ConversationInput => ({
  ...by('mallory'),
  type: 'conversation.membership.changed',
  data: {
    conversation_id: group,
    group_id: group,
    user_id: userId,
    change,
    access_level: change === 'revoke' ? null : 'reader',
  },
});

// The converter's check is the one that counts: a share the gateway let through before the
// erasure was asked for may reach the converter after.
test('access or ownership given to a person whose erasure is open is refused, naming no one; a revoke is not', async (t) => {
  const { store, apply } = await conversationHarness(t);
  for (const id of ['m1', 'm2']) {
    await insertConversation(store, { id, groupId: id, title: null, metadata: {}, fork: null });
    await claimConversation(store, id, 'mallory');
  }
  await setMembership(store, 'm2', 'alice6', 'reader');
  await createErasureJob(store, {
    userId: 'alice6',
    requestedBy: 'user:root',
    self: false,
    firstStep: 'owned-conversations',
  });

  const share = membership('m1', 'alice6', 'share');
  const update = membership('m2', 'alice6', 'update');
  const offer: ConversationInput = {
    ...by('mallory'),
    type: 'conversation.ownership.transfer',
    data: {
      conversation_id: 'm1',
      group_id: 'm1',
      action: 'request',
      transfer_id: randomUUID(),
      new_owner_user_id: 'alice6',
      recipients: 'anyone',
    },
  };
  const others = membership('m1', 'bob', 'share');
  await apply(share, update, offer, others);
  for (const refused of [share, update, offer]) {
    const outcome = await findRequestOutcome(store, refused.id);
    assert.equal(outcome?.status, 'failed', refused.type);
    assert.equal(outcome?.error_code, 'CONFLICT');
    assert.match(outcome?.error_message ?? '', /being erased/);
    assert.doesNotMatch(JSON.stringify(outcome), /alice6/, 'the outcome is no new row about her');
  }
  assert.equal(await findMembership(store, 'm1', 'alice6'), undefined);
  assert.equal((await findMembership(store, 'm2', 'alice6'))?.access_level, 'reader', 'her level was not changed');
  assert.equal((await findRequestOutcome(store, others.id))?.status, 'stored', 'sharing with someone else goes on');

  const revoke = membership('m2', 'alice6', 'revoke');
  await apply(revoke);
  assert.equal((await findRequestOutcome(store, revoke.id))?.status, 'stored', 'taking access away stays allowed');
  assert.equal(await findMembership(store, 'm2', 'alice6'), undefined);
});
