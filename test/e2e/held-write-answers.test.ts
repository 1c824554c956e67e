import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { pipelineEnv, startApi } from '../helpers/distributed.js';
import { REPO_ROOT, startServing } from '../../harness/processes.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import { mainOf } from '../../scripts/processes.js';

type Operations = Record<
  string,
  Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
>;

/** The JSON schema openapi.json gives an operation's answer of `status`, or undefined when it gives none. */
async function documentedAnswer(path: string, method: string, status: number) {
  const doc = JSON.parse(await readFile(resolve(REPO_ROOT, 'openapi.json'), 'utf8')) as {
    paths: Operations;
    components: object;
  };
  const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  return new Ajv2020({ strict: false }).compile({ ...schema, components: doc.components });
}

test('distributed mode: a memory-service or KAOS write (an ownership offer too) the converter has not applied within the wait answers 202 with the body openapi.json documents for it', async (t: TestContext) => {
  // a short wait, so a write the stopped converter cannot apply is answered 202 soon
  const env = await pipelineEnv(t, 'held', { AUTH_JWT_SECRET: TEST_JWT_SECRET, REQUEST_SYNC_TIMEOUT_MS: '1000' });
  const { proc: converter } = await startServing(t, mainOf('converter'), env);
  const [api] = await startApi(t, env);
  const people = { bob: bearer(await userToken('bob')), dave: bearer(await userToken('dave')) };
  const call = async (method: string, path: string, body?: unknown, as: keyof typeof people = 'bob') => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...people[as], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
  };

  // What the held writes act on, applied while the converter runs.
  const created = await call('POST', '/v1/conversations', { title: 'held' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body['id'] as string;
  const message = await call('POST', `/v1/conversations/${id}/messages`, {
    content: [{ type: 'text', text: 'hello' }],
    channel: 'history',
  });
  assert.equal(message.status, 201, JSON.stringify(message.body));
  assert.equal(
    (await call('POST', `/v1/conversations/${id}/memberships`, { userId: 'dave', accessLevel: 'reader' })).status,
    201,
  );
  // a second conversation, where dave has an offer of ownership pending
  const offering = (await call('POST', '/v1/conversations', { title: 'offer' })).body['id'] as string;
  await call('POST', `/v1/conversations/${offering}/memberships`, { userId: 'dave', accessLevel: 'reader' });
  const offer = await call('POST', `/v1/conversations/${offering}/transfer-ownership`, { newOwnerUserId: 'dave' });
  assert.equal(offer.status, 202, JSON.stringify(offer.body));
  assert.equal(offer.body['status'], 'pending');
  const session = await call('POST', '/memory/sessions', { app_name: 'agent', user_id: 'bob', session_id: 'held-s' });
  assert.equal(session.status, 201, JSON.stringify(session.body));

  converter.child.kill('SIGTERM');
  await converter.exited;
  const held: [string, string, string, unknown?, ('bob' | 'dave')?][] = [
    [
      'POST',
      `/v1/conversations/${id}/transfer-ownership`,
      '/v1/conversations/{conversationId}/transfer-ownership',
      { newOwnerUserId: 'dave' },
    ],
    [
      'POST',
      `/v1/conversations/${offering}/transfer-ownership/accept`,
      '/v1/conversations/{conversationId}/transfer-ownership/accept',
      undefined,
      'dave',
    ],
    ['DELETE', `/v1/ownership-transfers/${offer.body['id'] as string}`, '/v1/ownership-transfers/{transferId}'],
    ['POST', '/v1/conversations', '/v1/conversations', { title: 'later' }],
    ['POST', '/v1/user/conversations', '/v1/user/conversations', { title: 'later' }],
    [
      'POST',
      `/v1/conversations/${id}/memberships`,
      '/v1/conversations/{conversationId}/memberships',
      { userId: 'erin', accessLevel: 'reader' },
    ],
    [
      'PATCH',
      `/v1/conversations/${id}/memberships/dave`,
      '/v1/conversations/{conversationId}/memberships/{userId}',
      { accessLevel: 'writer' },
    ],
    [
      'POST',
      `/v1/conversations/${id}/messages/${message.body['id'] as string}/fork`,
      '/v1/conversations/{conversationId}/messages/{messageId}/fork',
      {},
    ],
    ['DELETE', `/v1/conversations/${id}/memberships/dave`, '/v1/conversations/{conversationId}/memberships/{userId}'],
    ['POST', '/memory/sessions', '/memory/sessions', { app_name: 'agent', user_id: 'bob', session_id: 'held-t' }],
    [
      'POST',
      '/memory/sessions/held-s/events',
      '/memory/sessions/{sessionId}/events',
      { event_type: 'user_message', content: 'hi' },
    ],
    ['POST', '/memory/cleanup', '/memory/cleanup', { max_age_hours: 1_000_000 }],
    ['DELETE', '/memory/sessions/held-s', '/memory/sessions/{sessionId}'],
    ['DELETE', `/v1/conversations/${id}`, '/v1/conversations/{conversationId}'],
  ];
  for (const [method, path, documented, body, as] of held) {
    const answer = await call(method, path, body, as);
    assert.equal(answer.status, 202, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    const valid = await documentedAnswer(documented, method.toLowerCase(), 202);
    assert.ok(valid, `${method} ${documented}: openapi.json documents no 202 body`);
    assert.ok(valid(answer.body), `${method} ${path}: ${JSON.stringify(answer.body)} ${JSON.stringify(valid.errors)}`);
  }
});
