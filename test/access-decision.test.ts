import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessDecision, type AccessLevel } from '@memstream/schemas';

test('one access rule for the API and the write gate: no level is not a member; a level allows what it and everything below it allow', () => {
  const order: AccessLevel[] = ['reader', 'writer', 'manager', 'owner'];
  for (const needed of order) {
    assert.equal(accessDecision(undefined, needed), 'not-member');
    for (const held of order) {
      const expected = order.indexOf(held) >= order.indexOf(needed) ? 'allowed' : 'below';
      assert.equal(accessDecision(held, needed), expected, `${held} for ${needed}`);
    }
  }
});
