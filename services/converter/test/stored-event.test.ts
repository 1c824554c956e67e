import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_ID_MAX_CHARS, MessageStored, type CanonicalMessage } from '@memstream/schemas';
import { storedEvent, storedEventId } from '../src/stored-event.js';

const message = (conversationId: string, seq: number): CanonicalMessage => ({
  conversation_id: conversationId,
  seq,
  message_id: 'm1',
  sender_id: 's',
  sender_name: 's',
  role: 'user',
  content: 'c',
  created_at: '2026-01-02T03:04:05.000Z',
  stored_at: '2026-01-02T03:04:05.000Z',
  refer_list: [],
  metadata: {},
  source_api: 'evermemos',
});

test('a stored message event fits its topic whatever the conversation id, up to a private chat of 263 characters', () => {
  for (const length of [1, 190, 198, 199, 200, 246, 255, 263]) {
    const event = storedEvent(message('c'.repeat(length), 2_147_483_647), 'corr');
    assert.ok(event.id.length <= EVENT_ID_MAX_CHARS, `${length}: ${event.id.length}`);
    assert.ok(MessageStored.safeParse(event).success, `${length}: the consumers' schema takes it`);
  }
});

test('a short conversation keeps its readable id; long ones that differ get different ids', () => {
  assert.equal(storedEventId('group-1', 7), 'group-1:7');
  assert.notEqual(storedEventId(`${'a'.repeat(250)}1`, 0), storedEventId(`${'a'.repeat(250)}2`, 0));
  assert.notEqual(storedEventId('a'.repeat(250), 0), storedEventId('a'.repeat(250), 1));
});
