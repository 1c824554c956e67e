import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '@memstream/metrics';

test('asking twice for one instrument returns the first, so composed services share a series', async () => {
  const metrics = new Metrics();
  const a = metrics.counter({ name: 'memstream_test_total', help: 'h', labelNames: ['topic'] });
  const b = metrics.counter({ name: 'memstream_test_total', help: 'h', labelNames: ['topic'] });
  assert.equal(a, b);
  a.inc({ topic: 't' });
  b.inc({ topic: 't' });
  assert.match((await metrics.render()).body, /^memstream_test_total\{topic="t"\} 2$/m);
});

test('one name with another type or other labels is refused, not silently merged', () => {
  const metrics = new Metrics();
  metrics.counter({ name: 'memstream_clash', help: 'h', labelNames: ['a'] });
  assert.throws(() => metrics.gauge({ name: 'memstream_clash', help: 'h', labelNames: ['a'] }), /already registered/);
  assert.throws(() => metrics.counter({ name: 'memstream_clash', help: 'h', labelNames: ['b'] }), /already registered/);
});

test('registries are independent: two instances in one process do not see each other', async () => {
  const first = new Metrics({ processMetrics: true });
  const second = new Metrics({ processMetrics: true });
  first.histogram({ name: 'memstream_only_first_seconds', help: 'h', buckets: [0.1, 1] }).observe(0.5);
  assert.match((await first.render()).body, /memstream_only_first_seconds_count 1/);
  assert.doesNotMatch((await second.render()).body, /memstream_only_first_seconds/);
  assert.match((await second.render()).body, /^process_cpu_user_seconds_total /m);
  assert.match((await first.render()).contentType, /^text\/plain/);
});
