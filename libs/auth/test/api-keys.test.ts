import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKeyRing } from '@memstream/auth';

const ring = new ApiKeyRing([
  { clientId: 'chat-backend', key: 'ck_live_0123456789abcdef' },
  { clientId: 'agent-runtime', key: 'ak_live_fedcba9876543210' },
  { clientId: 'batch-importer', key: 'bk_live_aaaaaaaaaaaaaaaa' },
]);

test('the ring finds the client a key belongs to, whichever position it holds', () => {
  assert.equal(ring.size, 3);
  assert.equal(ring.clientOf('ck_live_0123456789abcdef'), 'chat-backend');
  assert.equal(ring.clientOf('ak_live_fedcba9876543210'), 'agent-runtime');
  assert.equal(ring.clientOf('bk_live_aaaaaaaaaaaaaaaa'), 'batch-importer');
});

test('a near miss is no match: a prefix, an extension, another case, surrounding space', () => {
  for (const candidate of [
    'ck_live_0123456789abcde',
    'ck_live_0123456789abcdef0',
    'CK_LIVE_0123456789ABCDEF',
    ' ck_live_0123456789abcdef',
    '',
    'chat-backend',
  ]) {
    assert.equal(ring.clientOf(candidate), undefined, JSON.stringify(candidate));
  }
});

test('an empty ring matches nothing', () => {
  const empty = new ApiKeyRing([]);
  assert.equal(empty.size, 0);
  assert.equal(empty.clientOf('ck_live_0123456789abcdef'), undefined);
});
