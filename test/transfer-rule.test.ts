import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transferRefusal } from '@memstream/schemas';

test('an offer of ownership: only the owner (or an unrestricted caller) makes one, never to the owner; a non-member is refused only under the members rule', () => {
  for (const recipients of ['members', 'anyone'] as const) {
    assert.equal(transferRefusal('owner', 'bob', 'alice', 'manager', recipients), undefined, recipients);
    assert.equal(transferRefusal('unrestricted', 'bob', 'alice', 'reader', recipients), undefined, recipients);
    assert.equal(transferRefusal('manager', 'bob', 'alice', 'reader', recipients)?.code, 'FORBIDDEN', recipients);
    assert.equal(transferRefusal(undefined, 'bob', 'alice', 'reader', recipients)?.code, 'RESOURCE_NOT_FOUND');
    assert.equal(transferRefusal('owner', 'alice', 'alice', 'owner', recipients)?.code, 'INVALID_PARAMETER');
  }
  assert.equal(transferRefusal('owner', 'stranger', 'alice', undefined, 'members')?.code, 'INVALID_PARAMETER');
  assert.equal(transferRefusal('owner', 'stranger', 'alice', undefined, 'anyone'), undefined);
  // a stranger making an offer is refused before the recipient is looked at, under either rule
  assert.equal(transferRefusal(undefined, 'stranger', 'alice', undefined, 'anyone')?.code, 'RESOURCE_NOT_FOUND');
});
