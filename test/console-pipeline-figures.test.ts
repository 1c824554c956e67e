import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrometheusText } from '@memstream/client';
import { figuresOf, withBusLag } from '../clients/console/src/pipeline/pipeline-figures.js';

const metrics = parsePrometheusText(
  [
    'memstream_consumer_lag_records{group="memstream-indexer",topic="conversation.message-stored.v1",partition="0"} 0',
    'memstream_consumer_records_total{group="memstream-indexer",topic="conversation.message-stored.v1",outcome="ok"} 7',
  ].join('\n'),
);
const partition = (p: number, lag: number) => ({ partition: p, end: 10, committed: 10 - lag, lag });

test("the Pipeline view's lag is the bus's, summed over topics, and a group only the bus knows gets a row", () => {
  const figures = withBusLag(figuresOf(metrics, 0), [
    {
      group: 'memstream-indexer',
      topic: 'conversation.message-stored.v1',
      lag: 5,
      partitions: [partition(0, 2), partition(1, 3)],
    },
    { group: 'memstream-extractor', topic: 'conversation.message-stored.v1', lag: 4, partitions: [partition(0, 4)] },
  ]);
  assert.deepEqual(
    figures.groups.map((g) => [g.group, g.lag, g.maxPartitionLag, g.ok]),
    [
      ['memstream-extractor', 4, 4, 0],
      ['memstream-indexer', 5, 3, 7],
    ],
  );
});
