import { test, type TestContext } from 'node:test';
import { uniqueName } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { pipelineEnv, startApi, startServices } from '../helpers/distributed.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import type { SecurityCallers, SecurityCheck } from './security-callers.js';
import { checkKaosCaps, KAOS_CAPS_ENV } from './security-kaos-caps-contract.js';
import { erasureFloodCheck } from './security-erasure-contract.js';
import { importsKeepTheTargetWhole } from './security-imports-contract.js';
import { checkSenderIsTheActor } from './security-sender-contract.js';
import { checkBuffers } from './security-buffers-contract.js';
import { keywordStatisticsPerAudience } from './security-keyword-contract.js';
import { edgeContract, SECURITY_PUBLIC_HOST } from './security-edge-contract.js';

// Issue 49's attacks, each a check of its own (test/e2e/security-*-contract.ts), run against one
// server of each mode with authentication on. Every check names its conversations with `prefix`,
// so the checks share a server without meeting. A check that needs a server of another kind (no
// credentials, a small heap) starts its own in its own test file.

const AGENT_KEY = 'security-agent-key-0123456789abcdef';
const AUTH_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: `chat-backend:${AGENT_KEY}`,
  SUMMARY_SWEEP_INTERVAL_MS: '200',
  ...KAOS_CAPS_ENV,
  PUBLIC_HOSTS: SECURITY_PUBLIC_HOST,
};

const CHECKS: ReadonlyArray<readonly [string, SecurityCheck]> = [
  ["KAOS caps are the server's and stay within what the caller manages", checkKaosCaps],
  ["another person's flood of shares cannot hold back an erasure", erasureFloodCheck],
  ['an import changes no conversation the server holds, and no later write fails', importsKeepTheTargetWhole],
  ['a person speaks only as themselves, in every family (sender)', checkSenderIsTheActor],
  ['buffers: resumer bounds and KAOS bodies refused unread', checkBuffers],
  ["a person's keyword scores do not move with an agent's private notes", keywordStatisticsPerAudience],
  ['a foreign origin or Host, a write without its media type, a body never read', edgeContract],
];

async function callers(): Promise<SecurityCallers> {
  const person = async (sub: string) => bearer(await userToken(sub));
  return {
    alice: await person('alice'),
    bob: await person('bob'),
    mallory: await person('mallory'),
    dora: await person('dora'),
    admin: bearer(await userToken('root', { claims: { roles: ['admin'] } })),
    agent: { 'x-api-key': AGENT_KEY },
  };
}

async function runChecks(t: TestContext, base: string, mode: string): Promise<void> {
  const who = await callers();
  for (const [name, check] of CHECKS) {
    await t.test(name, () => check(base, who, uniqueName(`sec-${mode}`)));
  }
}

test('embedded mode with authentication: no caller deletes, rewrites, speaks for or stalls another', async (t) => {
  const base = await embeddedMemstream(t, AUTH_ENV);
  await runChecks(t, base, 'emb');
});

test('distributed mode with authentication: the same attacks fail across gateway, converter and read API', async (t) => {
  const env = await pipelineEnv(t, 'security', { ...AUTH_ENV, SUMMARIZER_GROUP_ID: uniqueName('summarizer') });
  await startServices(t, env, ['converter', 'governance', 'indexer', 'extractor', 'summarizer']);
  const [base] = (await startApi(t, env)) as [string];
  await runChecks(t, base, 'dist');
});
