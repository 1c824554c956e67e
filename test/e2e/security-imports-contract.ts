import assert from 'node:assert/strict';
import { bearer, userToken } from '../../harness/credentials.js';
import type { SecurityCheck } from './security-callers.js';

// Issue 49, item 6: an import into a live server changed a conversation it already held. One
// membership row gave the admin manager on alice's group, read afterwards with the admin's plain
// (role-less) token; a message numbered 50 left next_seq behind, and alice's 50th write failed
// with 500 from then on. An import now stores records only into conversations it creates, and its
// audit row names what it created and granted.

const AT = '2025-03-01T10:00:00.000000Z';
const HEADER = {
  kind: 'header',
  format: 'memstream-export',
  version: 1,
  server: 'security-check',
  exportedAt: AT,
  scope: { kind: 'server' },
};

type Json = Record<string, unknown>;

async function call(base: string, who: Json, method: string, path: string, body?: unknown, type = 'application/json') {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(who as Record<string, string>), ...(body === undefined ? {} : { 'content-type': type }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : {}) as Json };
}

/** An export of `records`, header and end record included. */
function exportOf(records: Json[]): string {
  const counts: Record<string, number> = {};
  for (const r of records) counts[r['kind'] as string] = (counts[r['kind'] as string] ?? 0) + 1;
  return [HEADER, ...records, { kind: 'end', counts }].map((r) => JSON.stringify(r)).join('\n');
}

const membership = (groupId: string, userId: string) => ({
  kind: 'membership',
  groupId,
  userId,
  accessLevel: 'manager',
  createdAt: AT,
});

export const importsKeepTheTargetWhole: SecurityCheck = async (base, who, prefix) => {
  const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
  const created = await call(base, who.alice, 'POST', '/v1/conversations', { title: `${prefix} alice's group` });
  assert.ok(created.status < 300, created.text);
  const group = created.body['id'] as string;
  const write = (n: number) => call(base, who.alice, 'POST', `/v1/conversations/${group}/messages`, text(`write ${n}`));
  const first = await write(1);
  assert.ok(first.status < 300, first.text);
  const justification = `${prefix} security check`;
  const importing = (records: Json[]) =>
    call(
      base,
      who.admin,
      'POST',
      `/v1/admin/imports?justification=${encodeURIComponent(justification)}`,
      exportOf(records),
      'application/x-ndjson',
    );

  // One membership row for alice's group: refused, by conversation, and no access follows.
  const grant = await importing([membership(group, 'root')]);
  assert.equal(grant.status, 200, grant.text);
  const plainRoot = bearer(await userToken('root'));
  const read = await call(base, plainRoot, 'GET', `/v1/conversations/${group}/messages`);
  assert.equal(read.status, 403, `the admin's role-less token reads alice's group: ${read.status} ${read.text}`);
  const refusal = (grant.body['refusedConversations'] as Json[])[0]!;
  assert.equal(refusal['code'], 'conflict');
  assert.equal((refusal['details'] as Json)['id'], group);
  assert.deepEqual((grant.body['refused'] as Json)['membership'], 1);

  // A message numbered 50 into alice's group: refused, and every later write of hers is stored.
  const planted = await importing([
    {
      kind: 'message',
      conversationId: group,
      seq: 50,
      id: 4_000_000_000_000 + Math.floor(Math.random() * 1_000_000_000),
      messageId: `${prefix}-planted`,
      senderId: 'alice',
      senderName: 'alice',
      role: 'user',
      content: 'planted by an import',
      createdAt: AT,
      storedAt: AT,
      referList: [],
      metadata: {},
      sourceApi: 'memory-service',
    },
  ]);
  assert.equal(planted.status, 200, planted.text);
  for (let n = 2; n <= 55; n++) {
    const res = await write(n);
    assert.ok(res.status < 300, `alice's write ${n}: ${res.status} ${res.text}`);
  }
  assert.equal(planted.body['refusedConversationCount'], 1);

  // A conversation new to the server is imported with its member, and the audit row names both.
  const moved = `${prefix}-moved`;
  const fresh = await importing([
    {
      kind: 'conversation',
      id: moved,
      sourceApi: 'memory-service',
      groupId: null,
      nextSeq: 0,
      title: null,
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      deletedAt: null,
    },
    membership(moved, 'dora'),
  ]);
  assert.equal(fresh.status, 200, fresh.text);
  assert.deepEqual(fresh.body['imported'], { conversation: 1, membership: 1 });
  const audit = await call(base, who.admin, 'GET', '/v1/admin/audit?action=import&limit=1000');
  const rows = (audit.body['data'] as Json[]).filter((e) => e['justification'] === justification);
  assert.deepEqual(
    rows.map((e) => e['params']),
    [
      { conversations: [], memberships: [], refusedConversations: [group] },
      { conversations: [], memberships: [], refusedConversations: [group] },
      {
        conversations: [moved],
        memberships: [{ groupId: moved, userId: 'dora', accessLevel: 'manager' }],
        refusedConversations: [],
      },
    ],
  );
};
