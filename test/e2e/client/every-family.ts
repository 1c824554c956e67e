import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { MemstreamError, type MemstreamClient } from '@memstream/client';
import { checkArk } from './ark-contract.js';
import { checkChatExample } from './chat-example.js';
import { checkEverMemOs, rejectsWith } from './evermemos-contract.js';
import { checkKaos } from './kaos-contract.js';
import { checkMemoryService } from './memory-service-contract.js';
import type { callers } from './callers.js';

/** Every family's contract, the chat example, then what the client itself promises: credentials, aborts (timeouts: client-distributed.test.ts). */
export async function checkEveryFamily(t: TestContext, who: ReturnType<typeof callers>, label: string): Promise<void> {
  await t.test('EverMemOS and the Memory Agent', () => checkEverMemOs(who.agent, label));
  await t.test('ARK, its stream read as an async iterator', () => checkArk(who.agent, label));
  await t.test('memory-service, both layouts, as people and as an agent', () => checkMemoryService(who, label));
  await t.test('KAOS', () => checkKaos(who.agent, label));
  await t.test('the chat-loop example stores and recalls through the client', () => checkChatExample(who.agent, label));
  await t.test('without credentials every family answers 401 in its own code', () =>
    checkUnauthenticated(who.anonymous),
  );
  await t.test('an aborted call rejects with ABORTED', () => checkAborted(who.agent));
}

async function checkUnauthenticated(anonymous: MemstreamClient): Promise<void> {
  await rejectsWith(anonymous.evermemos.list({ group_id: 'g' }), {
    family: 'evermemos',
    status: 401,
    code: 'UNAUTHENTICATED',
  });
  await rejectsWith(anonymous.ark.sessions(), { family: 'ark', status: 401, code: 'UNAUTHENTICATED' });
  await rejectsWith(anonymous.memoryAgent.context('g'), {
    family: 'memory-agent',
    status: 401,
    code: 'UNAUTHENTICATED',
  });
  await rejectsWith(anonymous.memoryService.conversations.list(), {
    family: 'memory-service',
    status: 401,
    code: 'unauthorized',
  });
  await rejectsWith(anonymous.kaos.stats(), { family: 'kaos', status: 401, code: 'UNAUTHENTICATED' });
}

async function checkAborted(client: MemstreamClient): Promise<void> {
  const aborted = await client.evermemos
    .search({ query: 'x' }, { signal: AbortSignal.abort() })
    .catch((e: unknown) => e);
  assert.ok(aborted instanceof MemstreamError);
  assert.deepEqual([aborted.code, aborted.status, aborted.family], ['ABORTED', 0, 'evermemos']);
}
