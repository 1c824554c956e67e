import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isAccepted, MemstreamClient, MemstreamError } from '@memstream/client';
import { waitFor } from '../helpers/infra.js';
import { distributedEnv, pipelineEnv, startServices } from '../helpers/distributed.js';
import { AGENT_KEY, AUTH_ENV, callers } from './client/callers.js';
import { checkEveryFamily } from './client/every-family.js';

test('distributed mode: @memstream/client drives every API family, writes to the gateway and reads from the read API', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'client', AUTH_ENV);
  const [gateway, , , , readApi] = await startServices(t, env, [
    'ingest-gateway',
    'converter',
    'indexer',
    'extractor',
    'read-api',
  ]);
  await checkEveryFamily(t, callers({ baseUrl: readApi!, gatewayUrl: gateway! }), 'distributed');
});

test('distributed mode: a write refused with 503 is retried after the Retry-After the gateway asked for, and succeeds; an attempt past its timeout rejects with TIMEOUT', async (t: TestContext) => {
  // One write in flight at a time, and no converter: the first write is held for the whole sync
  // wait, so the gateway refuses a second one with 503 OVERLOADED until the first answers 202.
  const env = await distributedEnv(t, 'client-retry', {
    ...AUTH_ENV,
    GATEWAY_MAX_IN_FLIGHT: '1',
    REQUEST_SYNC_TIMEOUT_MS: '3000',
  });
  const [gateway] = await startServices(t, env, ['ingest-gateway']);
  const client = new MemstreamClient({
    baseUrl: gateway!,
    apiKey: AGENT_KEY,
    retry: { maxAttempts: 5, initialDelayMs: 50, maxDelayMs: 200 },
  });
  const once = new MemstreamClient({ baseUrl: gateway!, apiKey: AGENT_KEY, retry: false });
  const message = (id: string) => ({
    group_id: 'retry_group',
    message_id: id,
    create_time: '2025-01-15T10:00:00Z',
    sender: 'u1',
    content: `message ${id}`,
  });

  const held = client.evermemos.write(message('held'));
  const refused = await waitFor('a write refused while the first is held', async () =>
    once.evermemos.write(message('probe')).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  assert.ok(refused instanceof MemstreamError);
  assert.deepEqual(
    [refused.family, refused.status, refused.code, refused.retryAfterMs],
    ['evermemos', 503, 'OVERLOADED', 5000],
  );

  const started = Date.now();
  const retried = await client.evermemos.write(message('retried'));
  // The backoff alone is at most 200 ms: only the server's Retry-After explains a wait this long.
  assert.ok(Date.now() - started >= 4_900, `answered after ${Date.now() - started} ms`);
  assert.ok(isAccepted(retried), 'with no converter running the gateway answers 202 once Kafka has the write');
  assert.ok(isAccepted(await held));

  // The gateway holds a write for the whole sync wait (3 s) with no converter to store it: an attempt allowed 300 ms times out.
  const slow = await once.evermemos.write(message('slow'), { timeoutMs: 300 }).catch((e: unknown) => e);
  assert.ok(slow instanceof MemstreamError);
  assert.deepEqual([slow.code, slow.status, slow.family], ['TIMEOUT', 0, 'evermemos']);
});
