import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { memoryServiceCall } from '../helpers/memory-service-client.js';
import { waitFor } from '../helpers/infra.js';

/** Every kind of caller the rules tell apart. */
export const CALLERS = [
  'owner',
  'manager',
  'writer',
  'reader',
  'stranger',
  'agent',
  'admin',
  'auditor',
  'adminClient',
  'auditorClient',
  'none',
  'expired',
  'forged',
] as const;
export type Caller = (typeof CALLERS)[number];
export type Credentials = Record<Caller, Record<string, string>>;

/**
 * The callers holding an admin or auditor role: people by a role in their token (members of no
 * conversation) and agents by their client id. The role opens the admin API and nothing else: on
 * the family's own endpoints an admin or auditor person is a stranger, an admin client an agent.
 */
type RoleCaller = 'admin' | 'auditor' | 'adminClient' | 'auditorClient';
const ROLE_CALLERS: Readonly<Record<RoleCaller, 'stranger' | 'agent'>> = {
  admin: 'stranger',
  auditor: 'stranger',
  adminClient: 'agent',
  auditorClient: 'agent',
};

/** The user ids behind the people among the callers. */
export const USERS = {
  owner: 'olga',
  manager: 'max',
  writer: 'wim',
  reader: 'rea',
  stranger: 'sam',
  admin: 'ada',
  auditor: 'aud',
} as const;

interface Fixture {
  readonly id: string;
  readonly firstMessage: string;
  /** A word only this fixture's first message holds, for the searches across conversations. */
  readonly word: string;
  /** The pending ownership transfer a row's preparation made. */
  readonly transferId?: string;
}

interface Row {
  readonly name: string;
  /** Calls the endpoint on a fixture as `headers`; returns the status. */
  readonly call: (base: string, f: Fixture, headers: Record<string, string>) => Promise<number>;
  /**
   * Expected status per caller; the three without valid credentials always expect 401, and those
   * with a role expect what a stranger or an agent does (ROLE_CALLERS) unless `roles` says otherwise.
   */
  readonly expect: Record<'owner' | 'manager' | 'writer' | 'reader' | 'stranger' | 'agent', number>;
  readonly roles?: Partial<Record<RoleCaller, number>>;
  /** A row that changes the fixture gets a fresh one per caller. */
  readonly mutates?: boolean;
  /** Prepares the fresh fixture (as its owner) before the call; may return it with what it made. */
  readonly prepare?: (base: string, f: Fixture, owner: Record<string, string>) => Promise<Fixture | void>;
}

const text = (t: string) => [{ type: 'text', text: t }];
const status = async (p: Promise<{ status: number }>) => (await p).status;
const raw = async (base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  (
    await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).status;

/** The admin API: no member or plain agent gets in. */
const ADMIN_ONLY = { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 403 };

/** Waits until the fixture's message is indexed: its owner finds it, searching the fixture alone. */
async function searchable(base: string, f: Fixture, owner: Record<string, string>): Promise<void> {
  await waitFor(
    'the fixture searchable',
    async () => {
      const res = await fetch(`${base}/v1/user/search/messages`, {
        method: 'POST',
        headers: { ...owner, 'content-type': 'application/json' },
        body: JSON.stringify({ query: f.word, conversationIds: [f.id] }),
      });
      return ((await res.json()) as { data: unknown[] }).data.length > 0 ? true : undefined;
    },
    30_000,
  );
}

/**
 * A search for the fixture's own word over every conversation the caller may search: 200 when
 * the fixture's message is among the hits, 204 when nothing is found, and 299 when something else
 * is (only the fixture's message holds the word, so any other hit is one the caller should not see).
 */
async function searchResult(base: string, path: string, f: Fixture, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: f.word }),
  });
  if (res.status !== 200) return res.status;
  const hits = ((await res.json()) as { data: Array<{ message: { conversationId: string } }> }).data;
  if (hits.length === 0) return 204;
  return hits.every((h) => h.message.conversationId === f.id) ? 200 : 299;
}

/** The owner offers the fixture to its reader at /v1/ownership-transfers; the offer's id goes with the fixture. */
async function offerToReader(base: string, f: Fixture, owner: Record<string, string>): Promise<Fixture> {
  const res = await fetch(`${base}/v1/ownership-transfers`, {
    method: 'POST',
    headers: { ...owner, 'content-type': 'application/json' },
    body: JSON.stringify({ conversationId: f.id, newOwnerUserId: USERS.reader }),
  });
  assert.equal(res.status, 201);
  return { ...f, transferId: ((await res.json()) as { id: string }).id };
}

/** Pages through the caller's offers: 200 when the fixture's is among them, 204 when not. */
async function listsOffer(base: string, f: Fixture, headers: Record<string, string>): Promise<number> {
  let cursor: string | null = null;
  do {
    const res = await fetch(`${base}/v1/ownership-transfers?limit=200${cursor ? `&afterCursor=${cursor}` : ''}`, {
      headers,
    });
    if (res.status !== 200) return res.status;
    const page = (await res.json()) as { data: Array<{ id: string }>; afterCursor: string | null };
    if (page.data.some((t) => t.id === f.transferId)) return 200;
    cursor = page.afterCursor;
  } while (cursor !== null);
  return 204;
}

/** The document layout keeps the platform's rule (a stranger learns nothing: 404); the code layout answers 403, as the memory-service does. */
const READ = { owner: 200, manager: 200, writer: 200, reader: 200, stranger: 404, agent: 200 };
const CODE_READ = { ...READ, stranger: 403 };

/** Every endpoint of the family, both layouts, and what each caller gets. */
export const ROWS: readonly Row[] = [
  {
    name: 'GET conversation',
    call: (b, f, h) =>
      status(memoryServiceCall(b, 'getConversation', { params: { conversationId: f.id }, headers: h })),
    expect: CODE_READ,
  },
  {
    name: 'GET /v1/user conversation',
    call: (b, f, h) => raw(b, 'GET', `/v1/user/conversations/${f.id}`, h),
    expect: READ,
  },
  {
    name: 'GET conversations',
    call: (b, _f, h) => status(memoryServiceCall(b, 'listConversations', { headers: h })),
    expect: { ...READ, stranger: 200 },
  },
  {
    name: 'GET messages',
    call: (b, f, h) =>
      status(memoryServiceCall(b, 'listConversationMessages', { params: { conversationId: f.id }, headers: h })),
    expect: CODE_READ,
  },
  {
    name: 'GET /v1/user messages',
    call: (b, f, h) => raw(b, 'GET', `/v1/user/conversations/${f.id}/messages`, h),
    expect: READ,
  },
  {
    name: 'GET messages of the memory channel',
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'listConversationMessages', {
          params: { conversationId: f.id },
          query: { channel: 'memory' },
          headers: h,
        }),
      ),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'GET forks',
    call: (b, f, h) =>
      status(memoryServiceCall(b, 'listConversationForks', { params: { conversationId: f.id }, headers: h })),
    expect: CODE_READ,
  },
  {
    name: 'GET /v1/user forks',
    call: (b, f, h) => raw(b, 'GET', `/v1/user/conversations/${f.id}/forks`, h),
    expect: READ,
  },
  {
    name: 'GET memberships',
    call: (b, f, h) =>
      status(memoryServiceCall(b, 'listConversationMemberships', { params: { conversationId: f.id }, headers: h })),
    expect: { owner: 200, manager: 200, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'POST message',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'appendConversationMessage', {
          params: { conversationId: f.id },
          body: { content: text('hi') },
          headers: h,
        }),
      ),
    expect: { owner: 201, manager: 201, writer: 201, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'POST /v1/user message',
    mutates: true,
    call: (b, f, h) => raw(b, 'POST', `/v1/user/conversations/${f.id}/messages`, h, { content: 'hi' }),
    expect: { owner: 201, manager: 201, writer: 201, reader: 403, stranger: 404, agent: 201 },
  },
  {
    name: 'POST /v1/agent messages',
    mutates: true,
    call: (b, f, h) =>
      raw(b, 'POST', `/v1/agent/conversations/${f.id}/messages`, h, {
        messages: [{ role: 'assistant', content: 'noted', visibility: 'agent' }],
      }),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  // Shared-session writes in the other families that name a sender (the sender rule): a person
  // speaks only as themselves, an agent for anyone. Appending leaves every other row's answer as
  // it was, so these share the fixture.
  {
    name: 'POST ARK /messages naming the owner',
    call: (b, f, h) =>
      raw(b, 'POST', '/messages', h, {
        session_id: f.id,
        messages: [{ role: 'user', name: USERS.owner, content: 'hi' }],
      }),
    expect: { owner: 200, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'POST ARK /messages, a role-only turn (stored as its writer)',
    call: (b, f, h) =>
      raw(b, 'POST', '/messages', h, { session_id: f.id, messages: [{ role: 'user', content: 'hi' }] }),
    expect: { owner: 200, manager: 200, writer: 200, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'POST EverMemOS /api/v1/memories with the owner as sender',
    call: (b, f, h) =>
      raw(b, 'POST', '/api/v1/memories', h, {
        group_id: f.id,
        message_id: randomUUID(),
        create_time: '2026-01-15T10:00:00Z',
        sender: USERS.owner,
        content: 'hi',
      }),
    expect: { owner: 200, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: "POST message with the owner's userId",
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'appendConversationMessage', {
          params: { conversationId: f.id },
          body: { content: text('hi'), userId: USERS.owner },
          headers: h,
        }),
      ),
    expect: { owner: 201, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'POST fork',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'forkConversationAtMessage', {
          params: { conversationId: f.id, messageId: f.firstMessage },
          body: {},
          headers: h,
        }),
      ),
    expect: { owner: 201, manager: 201, writer: 201, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'POST memberships (share)',
    mutates: true,
    call: (b, f, h) =>
      raw(b, 'POST', `/v1/conversations/${f.id}/memberships`, h, { userId: 'newbie', accessLevel: 'reader' }),
    expect: { owner: 201, manager: 201, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'POST forks (share, as the January 2026 code has it)',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'shareConversation', {
          params: { conversationId: f.id },
          body: { userId: 'newbie', accessLevel: 'writer' },
          headers: h,
        }),
      ),
    expect: { owner: 201, manager: 201, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'PATCH membership',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'updateConversationMembership', {
          params: { conversationId: f.id, userId: USERS.writer },
          body: { accessLevel: 'reader' },
          headers: h,
        }),
      ),
    expect: { owner: 200, manager: 200, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'DELETE membership (the writer; the writer themselves leaves)',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'deleteConversationMembership', {
          params: { conversationId: f.id, userId: USERS.writer },
          headers: h,
        }),
      ),
    expect: { owner: 204, manager: 204, writer: 204, reader: 403, stranger: 403, agent: 204 },
  },
  {
    name: 'DELETE membership of the owner',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'deleteConversationMembership', {
          params: { conversationId: f.id, userId: USERS.owner },
          headers: h,
        }),
      ),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 403 },
  },
  {
    name: 'POST transfer-ownership',
    mutates: true,
    call: (b, f, h) =>
      status(
        memoryServiceCall(b, 'transferConversationOwnership', {
          params: { conversationId: f.id },
          body: { newOwnerUserId: USERS.manager },
          headers: h,
        }),
      ),
    expect: { owner: 202, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 202 },
  },
  {
    name: 'POST transfer-ownership/accept (offered to the reader)',
    mutates: true,
    prepare: async (b, f, owner) => {
      assert.equal(
        await status(
          memoryServiceCall(b, 'transferConversationOwnership', {
            params: { conversationId: f.id },
            body: { newOwnerUserId: USERS.reader },
            headers: owner,
          }),
        ),
        202,
      );
    },
    call: (b, f, h) => raw(b, 'POST', `/v1/conversations/${f.id}/transfer-ownership/accept`, h),
    // only the recipient settles an offer; anyone else who may know of it gets 403, as from the memory-service
    expect: { owner: 403, manager: 403, writer: 403, reader: 200, stranger: 403, agent: 403 },
  },
  {
    name: 'POST transfer-ownership/decline (offered to the reader)',
    mutates: true,
    prepare: async (b, f, owner) => {
      assert.equal(
        await status(
          memoryServiceCall(b, 'transferConversationOwnership', {
            params: { conversationId: f.id },
            body: { newOwnerUserId: USERS.reader },
            headers: owner,
          }),
        ),
        202,
      );
    },
    call: (b, f, h) => raw(b, 'POST', `/v1/conversations/${f.id}/transfer-ownership/decline`, h),
    expect: { owner: 403, manager: 403, writer: 403, reader: 200, stranger: 403, agent: 403 },
  },
  {
    name: 'DELETE ownership-transfers/{id} (offered to the reader): the owner withdraws, the reader declines',
    mutates: true,
    prepare: async (b, f, owner) => {
      const offered = await memoryServiceCall<{ id: string }>(b, 'transferConversationOwnership', {
        params: { conversationId: f.id },
        body: { newOwnerUserId: USERS.reader },
        headers: owner,
      });
      assert.equal(offered.status, 202);
      return { ...f, transferId: offered.body.id };
    },
    call: (b, f, h) => raw(b, 'DELETE', `/v1/ownership-transfers/${f.transferId}`, h),
    expect: { owner: 204, manager: 403, writer: 403, reader: 204, stranger: 403, agent: 204 },
  },
  {
    name: 'POST /v1/ownership-transfers (to the manager)',
    mutates: true,
    call: (b, f, h) =>
      raw(b, 'POST', '/v1/ownership-transfers', h, { conversationId: f.id, newOwnerUserId: USERS.manager }),
    expect: { owner: 201, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'GET /v1/ownership-transfers/{id} (offered to the reader): its parties only',
    mutates: true,
    prepare: offerToReader,
    call: (b, f, h) => raw(b, 'GET', `/v1/ownership-transfers/${f.transferId}`, h),
    expect: { owner: 200, manager: 404, writer: 404, reader: 200, stranger: 404, agent: 200 },
  },
  {
    name: 'GET /v1/ownership-transfers (offered to the reader): 200 when the offer is listed, 204 when not',
    mutates: true,
    prepare: offerToReader,
    call: listsOffer,
    expect: { owner: 200, manager: 204, writer: 204, reader: 200, stranger: 204, agent: 200 },
  },
  {
    name: 'POST /v1/ownership-transfers/{id}/accept (offered to the reader)',
    mutates: true,
    prepare: offerToReader,
    call: (b, f, h) => raw(b, 'POST', `/v1/ownership-transfers/${f.transferId}/accept`, h),
    expect: { owner: 403, manager: 403, writer: 403, reader: 204, stranger: 403, agent: 403 },
  },
  {
    name: 'POST memory/messages/sync',
    mutates: true,
    call: (b, f, h) =>
      raw(b, 'POST', `/v1/conversations/${f.id}/memory/messages/sync`, h, {
        messages: [{ channel: 'memory', content: text('remember this') }],
      }),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'GET /v1/agent context',
    call: (b, f, h) => raw(b, 'GET', `/v1/agent/conversations/${f.id}/context`, h),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 200 },
  },
  {
    name: 'POST summaries',
    mutates: true,
    call: (b, f, h) =>
      raw(b, 'POST', `/v1/conversations/${f.id}/summaries`, h, {
        title: 't',
        summary: 's',
        untilMessageId: f.firstMessage,
        summarizedAt: '2026-01-01T00:00:00Z',
      }),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 201 },
  },
  {
    name: 'POST search (scoped to the fixture)',
    // indexing follows the write: wait until the owner finds the message, then ask everyone
    prepare: async (b, f, owner) => {
      await waitFor(
        'the fixture searchable',
        async () => {
          const res = await fetch(`${b}/v1/user/search/messages`, {
            method: 'POST',
            headers: { ...owner, 'content-type': 'application/json' },
            body: JSON.stringify({ query: 'first', conversationIds: [f.id] }),
          });
          return ((await res.json()) as { data: unknown[] }).data.length > 0 ? true : undefined;
        },
        30_000,
      );
    },
    call: async (b, f, h) => {
      const res = await fetch(`${b}/v1/user/search/messages`, {
        method: 'POST',
        headers: { ...h, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'first', conversationIds: [f.id] }),
      });
      if (res.status !== 200) return res.status;
      // 200 with the fixture's message for those who may read it, 200 with nothing for the others
      const hits = ((await res.json()) as { data: unknown[] }).data.length;
      return hits > 0 ? 200 : 204;
    },
    expect: { owner: 200, manager: 200, writer: 200, reader: 200, stranger: 204, agent: 200 },
  },
  {
    name: 'POST /v1/user/search/messages across conversations (no conversationIds)',
    prepare: (b, f, owner) => searchable(b, f, owner),
    call: (b, f, h) => searchResult(b, '/v1/user/search/messages', f, h),
    expect: { owner: 200, manager: 200, writer: 200, reader: 200, stranger: 204, agent: 200 },
  },
  {
    name: 'POST /v1/admin/search/messages (every person, every conversation)',
    prepare: (b, f, owner) => searchable(b, f, owner),
    call: (b, f, h) => searchResult(b, '/v1/admin/search/messages', f, h),
    expect: { owner: 403, manager: 403, writer: 403, reader: 403, stranger: 403, agent: 403 },
    roles: { admin: 200, auditor: 200, adminClient: 200, auditorClient: 200 },
  },
  {
    name: 'GET /v1/admin/conversations/{id}',
    call: (b, f, h) => raw(b, 'GET', `/v1/admin/conversations/${f.id}`, h),
    expect: ADMIN_ONLY,
    roles: { admin: 200, auditor: 200, adminClient: 200, auditorClient: 200 },
  },
  {
    name: 'GET /v1/admin/conversations/{id}/messages',
    call: (b, f, h) => raw(b, 'GET', `/v1/admin/conversations/${f.id}/messages`, h),
    expect: ADMIN_ONLY,
    roles: { admin: 200, auditor: 200, adminClient: 200, auditorClient: 200 },
  },
  {
    name: 'DELETE /v1/admin/conversations/{id}',
    mutates: true,
    call: (b, f, h) => raw(b, 'DELETE', `/v1/admin/conversations/${f.id}`, h, { justification: 'matrix' }),
    expect: ADMIN_ONLY,
    roles: { admin: 204, auditor: 403, adminClient: 204, auditorClient: 403 },
  },
  {
    name: 'DELETE conversation',
    mutates: true,
    call: (b, f, h) =>
      status(memoryServiceCall(b, 'deleteConversation', { params: { conversationId: f.id }, headers: h })),
    expect: { owner: 204, manager: 204, writer: 403, reader: 403, stranger: 403, agent: 204 },
  },
];

/** A word of letters only (a search term as it is tokenized), different each time. */
const uniqueWord = () =>
  `zq${Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')}`;

/** A conversation of the owner's with one member of each level and one user message. */
async function fixture(base: string, creds: Credentials): Promise<Fixture> {
  const created = await memoryServiceCall<{ id: string }>(base, 'createConversation', {
    body: { title: 'matrix' },
    headers: creds.owner,
  });
  assert.equal(created.status, 201);
  const id = created.body.id;
  const word = uniqueWord();
  const first = await memoryServiceCall<{ id: string }>(base, 'appendConversationMessage', {
    params: { conversationId: id },
    body: { content: text(`first ${word}`) },
    headers: creds.owner,
  });
  for (const level of ['manager', 'writer', 'reader'] as const) {
    const shared = await raw(base, 'POST', `/v1/conversations/${id}/memberships`, creds.owner, {
      userId: USERS[level],
      accessLevel: level,
    });
    assert.equal(shared, 201);
  }
  return { id, firstMessage: first.body.id, word };
}

function expectedOf(row: Row, caller: Caller): number {
  if (caller === 'none' || caller === 'expired' || caller === 'forged') return 401;
  if (caller in ROLE_CALLERS) {
    const role = caller as RoleCaller;
    return row.roles?.[role] ?? row.expect[ROLE_CALLERS[role]];
  }
  return row.expect[caller as keyof Row['expect']];
}

/**
 * Calls every row as every caller and compares each status with the table; reports every
 * difference at once, so one run shows the whole matrix.
 */
export async function checkAuthorizationMatrix(base: string, creds: Credentials): Promise<void> {
  const shared = await fixture(base, creds);
  const wrong: string[] = [];
  for (const row of ROWS) {
    for (const caller of CALLERS) {
      const fresh = row.mutates ? await fixture(base, creds) : shared;
      const f = (await row.prepare?.(base, fresh, creds.owner)) ?? fresh;
      const expected = expectedOf(row, caller);
      const got = await row.call(base, f, creds[caller]);
      if (got !== expected) wrong.push(`${row.name} as ${caller}: ${got}, expected ${expected}`);
    }
  }
  assert.deepEqual(wrong, [], wrong.join('\n'));
}
