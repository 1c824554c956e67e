import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemstreamError, type ConsumerGroupLag } from '@memstream/client';
import { TOPICS } from '@memstream/schemas';
import { startServing, type RunningProcess } from '../../harness/processes.js';
import { waitFor } from '../helpers/infra.js';
import { pipelineEnv, startServices } from '../helpers/distributed.js';
import { mainOf } from '../../scripts/processes.js';
import { AUTH_ENV, callers } from './client/callers.js';

/** The indexer on a port of its own, healthy: started, and started again, by the test. */
async function startIndexer(t: TestContext, env: Record<string, string>): Promise<RunningProcess> {
  return (await startServing(t, mainOf('indexer'), env)).proc;
}

test('distributed mode: the read API reports a stopped consumer group lag growing from Kafka, and back to 0 once it runs again', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'pipeline-lag', AUTH_ENV);
  const [gateway, readApi] = await startServices(t, env, ['ingest-gateway', 'read-api', 'converter']);
  let indexer = await startIndexer(t, env);
  const { agent, alice, anonymous } = callers({ baseUrl: readApi!, gatewayUrl: gateway! });

  let written = 0;
  const write = async (n: number) => {
    for (let i = 0; i < n; i++, written++)
      await agent.evermemos.write({
        group_id: 'lag_group',
        message_id: `m${written}`,
        create_time: new Date(Date.UTC(2025, 0, 15, 10, 0, written)).toISOString(),
        sender: 'u1',
        content: `message ${written}`,
      });
  };
  // A person may read it (it names groups and counts, no one's content); no caller at all may not.
  const indexerLag = async (): Promise<ConsumerGroupLag> => {
    const { data } = await alice.console.pipeline();
    const entry = data.find((e) => e.group === env['INDEXER_GROUP_ID'] && e.topic === TOPICS.messagesStored.name);
    assert.ok(entry, `the indexer's group on ${TOPICS.messagesStored.name} is listed: ${JSON.stringify(data)}`);
    return entry;
  };
  const refused = await anonymous.console.pipeline().catch((e: unknown) => e);
  assert.ok(refused instanceof MemstreamError && refused.status === 401, String(refused));

  await write(2);
  await waitFor('the running indexer caught up (lag 0, committed)', async () => {
    const lag = await indexerLag();
    return lag.lag === 0 && lag.partitions.some((p) => p.committed !== null);
  });

  // The indexer's own gauge goes with its process; the broker's offsets do not.
  indexer.child.kill('SIGTERM');
  await indexer.exited;
  await write(5);
  const behind = await waitFor('the stopped indexer 5 records behind', async () => {
    const lag = await indexerLag();
    return lag.lag >= 5 && lag;
  });
  assert.equal(behind.lag, 5, 'exactly what was written while it was down');
  assert.equal(
    behind.partitions.reduce((n, p) => n + p.lag, 0),
    behind.lag,
    'the group lag is its partitions summed',
  );
  await write(3);
  await waitFor('the lag growing while writes go on', async () => (await indexerLag()).lag === 8);

  indexer = await startIndexer(t, env);
  await waitFor('the restarted indexer back to a lag of 0', async () => (await indexerLag()).lag === 0, 60_000);
});
