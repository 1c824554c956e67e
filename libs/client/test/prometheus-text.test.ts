import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrometheusText } from '@memstream/client';

test('samples keep their labels, escaped values unescaped; comments and type lines are skipped', () => {
  const text = [
    '# HELP memstream_consumer_lag_records lag',
    '# TYPE memstream_consumer_lag_records gauge',
    'memstream_consumer_lag_records{topic="conversation.message-stored.v1",partition="3",group="memstream-indexer"} 12',
    'memstream_consumer_dead_letters_total{topic="t",group="g",reason="say \\"no\\", a\\\\b\\nc"} 2',
    'process_cpu_seconds_total 1.5e-3',
    'memstream_model_tokens_total{model="m",operation="summary",kind="prompt"} 240 1700000000000',
    'nodejs_heap_bytes{space="new"} NaN',
  ].join('\n');
  const samples = parsePrometheusText(text);
  assert.deepEqual(samples.slice(0, 4), [
    {
      name: 'memstream_consumer_lag_records',
      labels: { topic: 'conversation.message-stored.v1', partition: '3', group: 'memstream-indexer' },
      value: 12,
    },
    {
      name: 'memstream_consumer_dead_letters_total',
      labels: { topic: 't', group: 'g', reason: 'say "no", a\\b\nc' },
      value: 2,
    },
    { name: 'process_cpu_seconds_total', labels: {}, value: 0.0015 },
    { name: 'memstream_model_tokens_total', labels: { model: 'm', operation: 'summary', kind: 'prompt' }, value: 240 },
  ]);
  assert.ok(Number.isNaN(samples[4]!.value));
});
