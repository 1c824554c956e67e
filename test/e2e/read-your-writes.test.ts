import { test, type TestContext } from 'node:test';
import { MemstreamClient } from '@memstream/client';
import { embeddedMemstream } from '../helpers/embedded.js';
import { pipelineEnv, startServices } from '../helpers/distributed.js';
import { AGENT_KEY, AUTH_ENV } from './client/callers.js';
import { stdioClient } from './mcp/mcp-clients.js';
import { checkReadYourWrites } from './read-your-writes-contract.js';

// Long enough that a write on this shared machine is answered 200 once stored, not 202.
const SYNC_WAIT = { REQUEST_SYNC_TIMEOUT_MS: '30000' };

test('embedded mode: every acknowledged write is found by the first keyword and hybrid search after it, in every family that searches', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH_ENV, ...SYNC_WAIT, EMBEDDING_PROVIDER: 'hash' });
  const client = new MemstreamClient({ baseUrl: base, apiKey: AGENT_KEY });
  const mcp = await stdioClient(t, { MEMSTREAM_URL: base, MEMSTREAM_API_KEY: AGENT_KEY });
  await checkReadYourWrites({ writer: client, reader: client, mcp }, 'embedded');
});

test('distributed mode, two read API replicas: every acknowledged write is found by the first keyword and hybrid search after it on the other replica', async (t: TestContext) => {
  const env = await pipelineEnv(t, 'ryw', { ...AUTH_ENV, ...SYNC_WAIT });
  const [gateway, , , first, second] = await startServices(t, env, [
    'ingest-gateway',
    'converter',
    'indexer',
    'read-api',
    'read-api',
  ]);
  const writer = new MemstreamClient({ baseUrl: first!, gatewayUrl: gateway!, apiKey: AGENT_KEY });
  const reader = new MemstreamClient({ baseUrl: second!, gatewayUrl: gateway!, apiKey: AGENT_KEY });
  const mcp = await stdioClient(t, {
    MEMSTREAM_URL: second!,
    MEMSTREAM_GATEWAY_URL: gateway!,
    MEMSTREAM_API_KEY: AGENT_KEY,
  });
  await checkReadYourWrites({ writer, reader, mcp }, 'distributed');
});
