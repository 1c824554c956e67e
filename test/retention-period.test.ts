import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EvictRequest, RETENTION_PERIOD_PATTERN, RETENTION_PERIOD_SHAPE, ZERO_PERIOD } from '@memstream/schemas';

/** Every string over the characters a period is written with, up to `length` long. */
function* stringsOver(alphabet: string, length: number): Generator<string> {
  yield '';
  let layer = [''];
  for (let n = 1; n <= length; n++) {
    layer = layer.flatMap((s) => [...alphabet].map((c) => s + c));
    yield* layer;
  }
}

test("the published period (its shape and not all zeros) is the settings' pattern, string for string", () => {
  let periods = 0;
  for (const s of stringsOver('PTYMWDHS01.', 5)) {
    const published = RETENTION_PERIOD_SHAPE.test(s) && !ZERO_PERIOD.test(s);
    assert.equal(published, RETENTION_PERIOD_PATTERN.test(s), JSON.stringify(s));
    if (published) periods++;
  }
  assert.ok(periods > 40, `only ${periods} periods met: the alphabet no longer writes periods`);
  for (const s of ['P1Y2M3W4DT5H6M7.25S', 'P10W', 'PT0.001S', 'P0Y0DT0H1M'])
    assert.ok(RETENTION_PERIOD_PATTERN.test(s) && RETENTION_PERIOD_SHAPE.test(s) && !ZERO_PERIOD.test(s), s);
});

test('the eviction request refuses a zero or malformed period and documents the rule without lookarounds', () => {
  const request = (retentionPeriod: string) =>
    EvictRequest.safeParse({ retentionPeriod, resourceTypes: ['conversation_groups'] }).success;
  assert.ok(request('P90D') && request('PT24H') && request('PT0.5S'));
  for (const bad of ['P0D', 'PT0S', 'P', 'PT', 'P1DT', 'P1.5D', 'P١D', '90D']) assert.ok(!request(bad), bad);
  const published = JSON.stringify(EvictRequest.shape.retentionPeriod.toJSONSchema({ io: 'input' }));
  assert.ok(!/\(\?[=!<]/.test(published), `a lookaround in ${published}`);
  assert.ok(!/\\d/.test(published), `\\d reads Unicode digits in Python: ${published}`);
});
