import assert from 'node:assert/strict';
import { MemstreamClient } from '@memstream/client';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { adminCall, memoryServiceCall } from '../helpers/memory-service-client.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

export const KEYS = {
  ops: 'ops-key-0123456789abcdef',
  audit: 'audit-key-0123456789abcdef',
  assistant: 'assistant-key-0123456789abcdef',
};
export const ADMIN_AUTH_ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  AUTH_API_KEYS: `ops:${KEYS.ops},audit:${KEYS.audit},assistant:${KEYS.assistant}`,
  AUTH_ADMIN_CLIENTS: 'ops',
  AUTH_AUDITOR_CLIENTS: 'audit',
  AUTH_AUDITOR_USERS: 'erin',
};

type Who = 'admin' | 'auditor' | 'listedAuditor' | 'adminClient' | 'auditorClient' | 'person' | 'agent';
const READERS: readonly Who[] = ['admin', 'auditor', 'listedAuditor', 'adminClient', 'auditorClient'];
const ADMINS: readonly Who[] = ['admin', 'adminClient'];

async function callers(): Promise<Record<Who, Record<string, string>>> {
  return {
    // a role in the token's `roles` claim, and one in Keycloak's realm_access.roles
    admin: bearer(await userToken('alice', { claims: { roles: ['admin'] } })),
    auditor: bearer(await userToken('carol', { claims: { realm_access: { roles: ['auditor'] } } })),
    listedAuditor: bearer(await userToken('erin')),
    adminClient: { 'x-api-key': KEYS.ops },
    auditorClient: { 'x-api-key': KEYS.audit },
    person: bearer(await userToken('bob')),
    agent: { 'x-api-key': KEYS.assistant },
  };
}

/** memory-service's refusal, exactly: 403 {error, code: forbidden, details: {message}}. */
function assertForbidden(reply: { status: number; body: unknown }, what: string): void {
  assert.equal(reply.status, 403, `${what}: ${JSON.stringify(reply.body)}`);
  const body = reply.body as { error?: unknown; code?: unknown; details?: { message?: unknown } };
  assert.equal(body.code, 'forbidden', what);
  assert.equal(typeof body.error, 'string', what);
  assert.equal(typeof body.details?.message, 'string', what);
}

/**
 * The admin and auditor API as memory-service's admin contract and its Cucumber features describe
 * it, against a server started with ADMIN_AUTH_ENV: who may read, who may change, what each call
 * answers (checked against the admin OpenAPI file), and the audit log every call writes.
 */
export async function checkAdminApi(base: string): Promise<void> {
  const as = await callers();
  const marker = uniqueName('zanzibarword');

  // bob's conversation, with a message carrying the marker; alice's own conversation
  const created = await memoryServiceCall<{ id: string }>(base, 'createConversation', {
    headers: as.person,
    body: { title: "Bob's Conversation" },
  });
  assert.equal(created.status, 201);
  const bobs = created.body.id;
  const appended = await memoryServiceCall(base, 'appendConversationMessage', {
    headers: as.person,
    params: { conversationId: bobs },
    body: { content: [{ type: 'text', text: `Searchable content ${marker}` }] },
  });
  assert.equal(appended.status, 201, JSON.stringify(appended.body));
  const alices = (
    await memoryServiceCall<{ id: string }>(base, 'createConversation', {
      headers: as.admin,
      body: { title: "Alice's" },
    })
  ).body.id;

  // every read: the five who hold a role get 200, a plain person and a plain agent 403
  const reads: Array<[string, (h: Record<string, string>) => Promise<{ status: number; body: unknown }>]> = [
    ['adminListConversations', (h) => adminCall(base, 'adminListConversations', { headers: h })],
    ['adminGetConversation', (h) => adminCall(base, 'adminGetConversation', { headers: h, params: { id: bobs } })],
    ['adminGetMessages', (h) => adminCall(base, 'adminGetMessages', { headers: h, params: { id: bobs } })],
    ['adminGetMemberships', (h) => adminCall(base, 'adminGetMemberships', { headers: h, params: { id: bobs } })],
    [
      'adminSearchMessages',
      (h) => adminCall(base, 'adminSearchMessages', { headers: h, body: { query: 'Searchable' } }),
    ],
    ['audit log', async (h) => fetchJson(`${base}/v1/admin/audit`, { headers: h })],
  ];
  for (const [name, read] of reads) {
    for (const who of READERS) assert.equal((await read(as[who])).status, 200, `${name} as ${who}`);
    for (const who of ['person', 'agent'] as const) assertForbidden(await read(as[who]), `${name} as ${who}`);
  }

  // every change: only the two admins; auditors only read
  for (const who of (Object.keys(as) as Who[]).filter((w) => !ADMINS.includes(w))) {
    assertForbidden(
      await adminCall(base, 'adminDeleteConversation', {
        headers: as[who],
        params: { id: bobs },
        body: { justification: 'x' },
      }),
      `delete as ${who}`,
    );
    assertForbidden(
      await adminCall(base, 'adminRestoreConversation', { headers: as[who], params: { id: bobs }, body: {} }),
      `restore as ${who}`,
    );
    assertForbidden(
      await adminCall(base, 'adminEvict', {
        headers: as[who],
        body: { retentionPeriod: 'P90D', resourceTypes: ['conversation_groups'] },
      }),
      `evict as ${who}`,
    );
  }

  // listing across people, and by owner
  const all = await adminCall<{ data: Array<{ id: string; ownerUserId?: string }> }>(base, 'adminListConversations', {
    headers: as.admin,
    query: { justification: 'Support ticket 1234' },
  });
  assert.deepEqual(
    [bobs, alices].filter((id) => all.body.data.some((c) => c.id === id)),
    [bobs, alices],
  );
  const bobsOnly = await adminCall<{ data: Array<{ ownerUserId?: string }> }>(base, 'adminListConversations', {
    headers: as.auditor,
    query: { userId: 'bob' },
  });
  assert.ok(bobsOnly.body.data.length >= 1);
  assert.ok(bobsOnly.body.data.every((c) => c.ownerUserId === 'bob'));

  // delete (the admin client), then the deleted are found only when asked for; restore (the admin person)
  assert.equal(
    (
      await adminCall(base, 'adminDeleteConversation', {
        headers: as.adminClient,
        params: { id: bobs },
        body: { justification: 'Test deletion' },
      })
    ).status,
    204,
  );
  assert.equal(
    (await adminCall(base, 'adminGetConversation', { headers: as.admin, params: { id: bobs } })).status,
    404,
  );
  const deleted = await adminCall<{ deletedAt: string | null; conversationGroupId?: string }>(
    base,
    'adminGetConversation',
    { headers: as.auditor, params: { id: bobs }, query: { includeDeleted: 'true' } },
  );
  assert.equal(deleted.status, 200);
  assert.notEqual(deleted.body.deletedAt, null);
  assert.equal('conversationGroupId' in deleted.body, false);
  const onlyDeleted = await adminCall<{ data: Array<{ id: string; deletedAt: string | null }> }>(
    base,
    'adminListConversations',
    { headers: as.admin, query: { onlyDeleted: 'true' } },
  );
  assert.ok(onlyDeleted.body.data.some((c) => c.id === bobs));
  assert.ok(onlyDeleted.body.data.every((c) => c.deletedAt !== null));
  const withDeleted = await adminCall<{ data: Array<{ id: string }> }>(base, 'adminListConversations', {
    headers: as.admin,
    query: { includeDeleted: 'true' },
  });
  assert.ok(withDeleted.body.data.some((c) => c.id === bobs) && withDeleted.body.data.some((c) => c.id === alices));
  // bob no longer reaches his deleted conversation through the family's own routes
  assert.notEqual(
    (await memoryServiceCall(base, 'getConversation', { headers: as.person, params: { conversationId: bobs } })).status,
    200,
  );

  const restored = await adminCall<{ deletedAt: string | null }>(base, 'adminRestoreConversation', {
    headers: as.admin,
    params: { id: bobs },
    body: { justification: 'Test restoration' },
  });
  assert.equal(restored.status, 200);
  assert.equal(restored.body.deletedAt, null);
  const again = await adminCall<{ code: string }>(base, 'adminRestoreConversation', {
    headers: as.admin,
    params: { id: alices },
    body: {},
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'conflict');

  // messages (every channel) and memberships
  const messages = await adminCall<{ data: Array<{ content: unknown[] }> }>(base, 'adminGetMessages', {
    headers: as.auditorClient,
    params: { id: bobs },
  });
  assert.equal(messages.body.data.length, 1);
  // a channel in any case, as the memory-service takes it
  const history = await adminCall<{ data: Array<{ channel: string }> }>(base, 'adminGetMessages', {
    headers: as.admin,
    params: { id: bobs },
    query: { channel: 'HISTORY' },
  });
  assert.deepEqual(
    history.body.data.map((m) => m.channel),
    ['history'],
  );
  const members = await adminCall<{ data: Array<{ conversationId: string; userId: string }> }>(
    base,
    'adminGetMemberships',
    { headers: as.listedAuditor, params: { id: bobs } },
  );
  assert.equal(members.body.data[0]?.conversationId, bobs);
  assert.equal(members.body.data[0]?.userId, 'bob');
  assert.equal(JSON.stringify(members.body).includes('conversationGroupId'), false);

  // search across everyone, and by owner
  const hits = await waitFor('the message indexed', async () => {
    const r = await adminCall<{ data: Array<{ message: { conversationId: string } }> }>(base, 'adminSearchMessages', {
      headers: as.admin,
      body: { query: marker },
    });
    return r.body.data.length > 0 ? r.body.data : undefined;
  });
  assert.equal(hits[0]!.message.conversationId, bobs);
  const byOwner = await adminCall<{ data: unknown[] }>(base, 'adminSearchMessages', {
    headers: as.admin,
    body: { query: marker, userId: 'alice' },
  });
  assert.deepEqual(byOwner.body.data, [], "bob's message is not in alice's conversations");

  // validation: memory-service's 400 shape, never a 500
  for (const [what, reply] of [
    ['limit 0', await adminCall(base, 'adminListConversations', { headers: as.admin, query: { limit: '0' } })],
    [
      'includeDeleted=maybe',
      await adminCall(base, 'adminListConversations', { headers: as.admin, query: { includeDeleted: 'maybe' } }),
    ],
    [
      'channel bogus',
      await adminCall(base, 'adminGetMessages', {
        headers: as.admin,
        params: { id: bobs },
        query: { channel: 'bogus' },
      }),
    ],
    ['search without query', await adminCall(base, 'adminSearchMessages', { headers: as.admin, body: {} })],
    [
      'retention "90 days"',
      await adminCall(base, 'adminEvict', {
        headers: as.admin,
        body: { retentionPeriod: '90 days', resourceTypes: ['conversation_groups'] },
      }),
    ],
    [
      'retention P0D',
      await adminCall(base, 'adminEvict', {
        headers: as.admin,
        body: { retentionPeriod: 'P0D', resourceTypes: ['conversation_groups'] },
      }),
    ],
    [
      'resource type messages',
      await adminCall(base, 'adminEvict', {
        headers: as.admin,
        body: { retentionPeriod: 'P90D', resourceTypes: ['messages'] },
      }),
    ],
    [
      'no resource types',
      await adminCall(base, 'adminEvict', { headers: as.admin, body: { retentionPeriod: 'P90D', resourceTypes: [] } }),
    ],
    [
      'job id not a uuid',
      await adminCall(base, 'adminGetEvictionJobStatus', { headers: as.admin, params: { jobId: 'nope' } }),
    ],
  ] as const) {
    assert.equal(reply.status, 400, `${what}: ${JSON.stringify(reply.body)}`);
    assert.equal((reply.body as { code: string }).code, 'bad_request', what);
  }

  // eviction with nothing to evict: 204; async: 202 and a job that completes
  assert.equal(
    (
      await adminCall(base, 'adminEvict', {
        headers: as.admin,
        body: { retentionPeriod: 'P90D', resourceTypes: ['conversation_groups'] },
      })
    ).status,
    204,
  );
  const started = await adminCall<{ jobId: string; status: string }>(base, 'adminEvict', {
    headers: as.adminClient,
    query: { async: 'true' },
    body: { retentionPeriod: 'PT1H', resourceTypes: ['conversation_groups', 'conversation_memberships'] },
  });
  assert.equal(started.status, 202);
  await waitFor('the async job completed', async () => {
    const job = await adminCall<{ status: string; progress: number }>(base, 'adminGetEvictionJobStatus', {
      headers: as.admin,
      params: { jobId: started.body.jobId },
    });
    return job.body.status === 'COMPLETED' && job.body.progress === 100;
  });
  assertForbidden(
    await adminCall(base, 'adminGetEvictionJobStatus', { headers: as.auditor, params: { jobId: started.body.jobId } }),
    'job status as an auditor',
  );

  // the audit log: readable by auditors, every call in it (refusals too), never content
  const log = await auditLog(base, as.auditor.authorization!.slice('Bearer '.length));
  const listed = log.find((e) => e.action === 'listConversations' && e.justification === 'Support ticket 1234');
  assert.ok(listed, 'the justification is kept');
  assert.equal(listed.actorId, 'alice');
  assert.equal(listed.role, 'admin');
  assert.equal(listed.status, 200);
  const deletion = log.find((e) => e.action === 'deleteConversation' && e.status === 204);
  assert.deepEqual(
    [deletion?.actorKind, deletion?.actorId, deletion?.target, deletion?.justification],
    ['agent', 'ops', bobs, 'Test deletion'],
  );
  assert.ok(
    log.some(
      (e) => e.action === 'deleteConversation' && e.actorId === 'carol' && e.role === 'auditor' && e.status === 403,
    ),
    'a refused attempt is audited, with the role the caller holds',
  );
  assert.ok(
    log.some((e) => e.action === 'listConversations' && e.actorId === 'bob' && e.role === null && e.status === 403),
    'and a plain person with none',
  );
  assert.ok(log.some((e) => e.action === 'evict' && e.status === 202 && e.actorId === 'ops'));
  const searched = log.find((e) => e.action === 'searchMessages' && e.status === 200 && e.counts['results'] === 1);
  assert.ok(searched, 'a search is audited with its count');
  assert.equal(JSON.stringify(log).includes(marker), false, 'no content (nor a search query) in the audit log');
  assert.equal(JSON.stringify(log).includes('Searchable'), false);
}

interface AuditRow {
  id: number;
  actorKind: string;
  actorId: string;
  role: string | null;
  action: string;
  target: string | null;
  justification: string | null;
  status: number;
  counts: Record<string, number>;
}

/** The whole log, page by page, read through @memstream/client as an auditor's tool would. */
async function auditLog(base: string, token: string): Promise<AuditRow[]> {
  const client = new MemstreamClient({ baseUrl: base, token, retry: false });
  const rows: AuditRow[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await client.admin.auditLog({ limit: 50, after });
    rows.push(...(page.data as AuditRow[]));
    if (page.nextCursor === null) return rows;
    after = Number(page.nextCursor);
  }
}

async function fetchJson(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
