import { test, type TestContext } from 'node:test';
import { embeddedMemstream } from '../helpers/embedded.js';
import { distributedEnv, startApi, startServices } from '../helpers/distributed.js';
import { uniqueName } from '../helpers/infra.js';
import { checkEveryIdLength, checkHostileInputs } from './edge-contract.js';

const AGENT_KEY = 'edge-agent-key-0123456789abcdef';
const agent = { 'x-api-key': AGENT_KEY };
const AUTH = { AUTH_API_KEYS: `edge:${AGENT_KEY}` };
// Summaries from the first message on, swept often and without spacing, so every conversation gets one soon.
const PROCESS_ALL = {
  MEMORY_SUMMARIZE_AFTER_SEQ: '0',
  SUMMARY_SWEEP_INTERVAL_MS: '200',
  SUMMARY_MIN_INTERVAL_MS: '0',
  EMBEDDING_PROVIDER: 'hash',
};

test('embedded mode: a write through every family with ids of every length up to the limit is indexed and summarized, nothing dead-lettered', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...AUTH, ...PROCESS_ALL });
  await checkEveryIdLength(base, agent, [base]);
});

test('embedded mode: hostile input gets a 4xx in its family shape before anything is published; nothing dead-lettered or stored', async (t: TestContext) => {
  const base = await embeddedMemstream(t, AUTH);
  await checkHostileInputs(base, agent, [base]);
});

test('distributed mode: the same writes over Kafka (KAOS keys of 1,500 characters included) reach the indexer and the summarizer, nothing dead-lettered', async (t: TestContext) => {
  const shared = await distributedEnv(t, 'edge', {
    ...AUTH,
    ...PROCESS_ALL,
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    INDEXER_GROUP_ID: uniqueName('indexer'),
    SUMMARIZER_GROUP_ID: uniqueName('summarizer'),
  });
  const [converter, indexer, summarizer] = await startServices(t, shared, ['converter', 'indexer', 'summarizer']);
  // The gateway and the read API behind the edge: every family's writes and reads on one address.
  const [api] = (await startApi(t, shared)) as [string];
  await checkEveryIdLength(api, agent, [converter!, indexer!, summarizer!]);
});
