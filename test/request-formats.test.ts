import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConversationMetaPatch,
  GroupChatMessage,
  IsoInstant,
  ISO_INSTANT_PATTERN,
  parseCreateTime,
  TIME_ZONES,
} from '@memstream/schemas';

test('an EverMemOS time is refused when its date does not exist, not rolled over into the next month', () => {
  for (const time of [
    '2026-02-29',
    '2026-02-31T00:00:00Z',
    '2026-04-31 10:00',
    '2026-01-01T24:00',
    '2026-01-01Z',
    ' 2026-01-01',
  ])
    assert.ok(!IsoInstant.safeParse(time).success, time);
  for (const time of [
    '2024-02-29',
    '2000-02-29T23:59:59.123456789+08:00',
    '2026-01-02 03:04',
    '2026-01-02t03:04:05z',
    '2026-01-02T03:04-0530',
  ])
    assert.ok(IsoInstant.safeParse(time).success, time);
});

test('every time the pattern accepts is read as that date and time, so the document promises nothing the store cannot place', () => {
  for (const year of ['1000', '1900', '1996', '2000', '2026'])
    for (let month = 1; month <= 12; month++)
      for (let day = 1; day <= 31; day++) {
        const date = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        for (const time of [date, `${date}T23:59:59.5`, `${date} 00:00Z`]) {
          if (!ISO_INSTANT_PATTERN.test(time)) continue;
          assert.equal(parseCreateTime(time)?.toISOString().slice(0, 10), date, time);
        }
      }
});

test("the pattern of a time uses no \\d, which other engines read as any script's digit", () => {
  assert.doesNotMatch(ISO_INSTANT_PATTERN.source, /\\d/);
  assert.ok(!GroupChatMessage.shape.create_time.safeParse('٢٠٢٦-01-01').success);
});

test('default_timezone takes exactly the listed IANA names, each one Intl formats with, and no other spelling', () => {
  for (const zone of TIME_ZONES) new Intl.DateTimeFormat('en-US', { timeZone: zone });
  assert.ok(TIME_ZONES.includes('Asia/Shanghai') && TIME_ZONES.includes('UTC'));
  const patch = (zone: string) => ConversationMetaPatch.safeParse({ group_id: 'g', default_timezone: zone }).success;
  assert.ok(patch('Asia/Shanghai'));
  // Intl takes these; EverMemOS's zoneinfo does not, and the document could not list them
  for (const zone of ['asia/shanghai', '+05:00', 'Factory']) assert.ok(!patch(zone), zone);
});
