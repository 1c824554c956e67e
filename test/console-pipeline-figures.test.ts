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

test('the Pipeline view lists each read replica with its lag and where its reads went, and nothing without replicas', () => {
  const replicaMetrics = parsePrometheusText(
    [
      'memstream_replica_up{replica="db-1:5432"} 1',
      'memstream_replica_up{replica="db-2:5432"} 0',
      'memstream_replica_lag_bytes{replica="db-1:5432"} 4096',
      'memstream_replica_lag_seconds{replica="db-1:5432"} 0.25',
      'memstream_replica_reads_total{replica="db-1:5432",outcome="replica"} 90',
      'memstream_replica_reads_total{replica="db-1:5432",outcome="primary_lagging"} 3',
      'memstream_replica_reads_total{replica="db-2:5432",outcome="primary_unavailable"} 7',
      'memstream_replica_reads_total{replica="",outcome="primary_unavailable"} 2',
    ].join('\n'),
  );
  assert.deepEqual(figuresOf(replicaMetrics, 0).replicas, [
    { replica: 'db-1:5432', up: true, lagBytes: 4096, lagSeconds: 0.25, reads: 90, toPrimary: 3 },
    { replica: 'db-2:5432', up: false, lagBytes: null, lagSeconds: null, reads: 0, toPrimary: 7 },
  ]);
  assert.deepEqual(figuresOf(metrics, 0).replicas, []);
});
