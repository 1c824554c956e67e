import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isSafeId,
  kaosAgentKey,
  kaosSessionKey,
  KaosEventsAppended,
  NOT_AN_ID_PATTERN,
  SAFE_ID_PATTERN,
} from '@memstream/schemas';

test('the id rule admits free-form ids and refuses only what cannot travel in a path or a key', () => {
  for (const id of ['a', 'team/alpha:chat 1', 'my-app.default.svc', '..a', ' x ', 'é😀', '%2F', 'x'.repeat(255)])
    assert.ok(isSafeId(id), JSON.stringify(id));
  for (const id of [
    '',
    ' ',
    '\t\u00a0',
    '.',
    '..',
    'a\u0000b',
    'a\u0007b',
    'a\u007fb',
    'a\u0085b',
    'a\ud800',
    '\udc00a',
    'x'.repeat(256),
  ])
    assert.ok(!isSafeId(id), JSON.stringify(id));
});

/** The id rule said directly, to hold the one-pattern form to. */
function followsRule(id: string): boolean {
  if (id.length < 1 || id.length > 255 || id === '.' || id === '..' || id.trim() === '') return false;
  if (/[\u0000-\u001F\u007F-\u009F]/.test(id)) return false;
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(id);
}

test('the id pattern is one every JSON Schema reader compiles: no lookaround, no surrogate escape, no \\d or \\s', () => {
  // Schemathesis (Rust's and Python's engines) drops a pattern naming a surrogate and then draws ids the server refuses.
  for (const pattern of [SAFE_ID_PATTERN, NOT_AN_ID_PATTERN]) {
    assert.doesNotMatch(pattern.source, /\(\?[=!<]|\\u[dD][89a-fA-F]|\\[dDsS]/);
    assert.ok(pattern.unicode, 'read with the u flag, as JSON Schema reads patterns');
  }
});

test('the id pattern says exactly the id rule: every string of up to four characters from its edge cases, and every BMP character', () => {
  const alphabet = [
    'a',
    '.',
    ' ',
    '\u00a0',
    '\ufeff',
    '\u2028',
    '\t',
    '\u0000',
    '\u0085',
    '\u007f',
    '\u009f',
    '\ud800',
    '\udc00',
    '😀',
    '\u3000',
    '\u200a',
    '\u200b',
    '\uffff',
    '\ue000',
    '\ud7ff',
    '-',
    '/',
  ];
  let differ = 0;
  const check = (s: string) => {
    if (isSafeId(s) !== followsRule(s)) differ++;
  };
  const walk = (prefix: string, depth: number): void => {
    check(prefix);
    if (depth > 0) for (const c of alphabet) walk(prefix + c, depth - 1);
  };
  walk('', 4);
  for (let unit = 0; unit <= 0xffff; unit++) {
    const c = String.fromCharCode(unit);
    for (const s of [c, `a${c}`, `${c}a`, ` ${c}`, `.${c}`]) check(s);
  }
  assert.equal(differ, 0);
});

test('KAOS keys of ids without % or : are what they were, so events already on the topic keep their partition', () => {
  assert.equal(kaosSessionKey('agent-1', 'session_0a1b'), 'kaos:agent-1:session_0a1b');
  assert.equal(kaosAgentKey('agent-1'), 'kaos:agent-1');
});

test('no two (agent, session) pairs share a KAOS key, and no session key is an agent key', () => {
  const pairs: Array<[string, string]> = [
    ['a:b', 'c'],
    ['a', 'b:c'],
    ['a%3Ab', 'c'],
    ['a', 'b%3Ac'],
    ['a%', '3Ab:c'],
    ['a', 'b'],
  ];
  const keys = pairs.map(([agent, session]) => kaosSessionKey(agent, session));
  assert.equal(new Set(keys).size, pairs.length, keys.join(' | '));
  assert.ok(!keys.includes(kaosAgentKey('a:b')));
});

test('a KAOS event list naming one event id twice is refused by the topic, at the second', () => {
  const event = (id: string) => ({
    event_id: id,
    timestamp: '2026-01-02T03:04:05Z',
    event_type: 'user_message',
    content: 'x',
    metadata: {},
  });
  const appended = (events: unknown[]) => ({
    id: 'e1',
    type: 'kaos.events.appended',
    occurred_at: '2026-01-02T03:04:05Z',
    data: {
      group_id: kaosSessionKey(':'.repeat(255), ':'.repeat(255)),
      agent: ':'.repeat(255),
      session_id: ':'.repeat(255),
      events,
      max_sessions: 1,
      max_session_events: 1,
    },
  });
  assert.ok(KaosEventsAppended.safeParse(appended([event('a'), event('b')])).success, 'the widest key fits the topic');
  const twice = KaosEventsAppended.safeParse(appended([event('a'), event('b'), event('a')]));
  assert.ok(!twice.success);
  assert.deepEqual(twice.error.issues[0]!.path, ['data', 'events', 2, 'event_id']);
});
