import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mentionsPerson, type BusRecord } from '@memstream/bus';

const at = (value: string, key: string | null = null, headers: Record<string, string> = {}): BusRecord => ({
  topic: 't.dlq',
  partition: 0,
  offset: '0',
  key,
  value: Buffer.from(value),
  headers,
});

test("a dead letter is the person's when their id is a whole token of its key, headers or value", () => {
  const isAlice = mentionsPerson('alice');
  assert.ok(isAlice(at('{"data":{"sender":"alice"}}')));
  assert.ok(isAlice(at('{not json, from alice')));
  assert.ok(isAlice(at('{}', 'private:alice')));
  assert.ok(isAlice(at('{}', null, { 'x-dlq-reason': 'user alice is not a member' })));
  // written with an escape by its producer: found once the value is read as JSON
  assert.ok(isAlice(at('{"sender":"\\u0061lice"}')));
});

test('an id inside a longer id, or another person, is not a match', () => {
  const isAl = mentionsPerson('al');
  assert.equal(isAl(at('{"sender":"alice"}')), false);
  assert.equal(isAl(at('{"sender":"al-2"}')), false);
  assert.equal(isAl(at('{"sender":"al.ice"}')), false);
  assert.equal(isAl(at('{"email":"bob@al"}')), false);
  assert.ok(isAl(at('{"sender":"al"}')));
  assert.ok(isAl(at('said al.')));
  assert.ok(mentionsPerson('u.1+x')(at('{"user_id":"u.1+x"}')), 'characters of a pattern are taken literally');
});
