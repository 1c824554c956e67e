import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { distributedEnv, startApi, startServices } from '../helpers/distributed.js';
import { freshDatabase, infra, uniqueName, waitFor } from '../helpers/infra.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, userToken } from '../../harness/credentials.js';
import { REPO_ROOT, runCaptured } from '../../harness/processes.js';
import {
  AGENT_KEY,
  analyzed,
  answers,
  answersAndExport,
  call,
  ENV,
  exportHeader,
  exportOf,
  importInto,
  KAOS,
  ok,
  recordsOf,
  rowCounts,
  settled,
  writeEverywhere,
} from './export-import-contract.js';

/** `memstream` as a user runs it, in its own process, with an admin's token in its environment. */
function memstreamWithEnv(env: Record<string, string>, ...args: string[]) {
  const inherited = { ...process.env };
  delete inherited['MEMSTREAM_API_KEY'];
  return runCaptured(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'services/cli/src/main.ts'), ...args], {
    env: { ...inherited, ...env },
  });
}

/** A server of its own: the embedded mode on a database of its own. */
async function server(t: TestContext): Promise<{ base: string; db: pg.Client }> {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...ENV, DATABASE_URL: databaseUrl, REDIS_URL: infra().redisUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  return { base, db };
}

test('an export imported onto a fresh server answers every family the same, and a second import changes nothing', async (t) => {
  const source = await server(t);
  const target = await server(t);
  const who = {
    agent: { 'x-api-key': AGENT_KEY },
    bob: bearer(await userToken('bob')),
    dave: bearer(await userToken('dave')),
    carol: bearer(await userToken('carol')),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin', 'auditor'] } })),
  };
  const world = await writeEverywhere(source.base, who);
  await waitFor('memories, summaries and vectors made', () => settled(source.db, world.group), 120_000);
  await analyzed(source.db);
  const { before, exported } = await answersAndExport(
    source.base,
    who,
    world,
    '/v1/admin/exports?justification=move%20server',
  );
  const records = recordsOf(exported);
  assert.equal(records[0]!.kind, 'header');
  assert.equal(records[0]!['format'], 'memstream-export');
  assert.equal(records[0]!['version'], 1);
  assert.equal(records.at(-1)!.kind, 'end');
  const kinds = new Set(records.map((r) => r.kind));
  for (const kind of [
    'conversation',
    'fork',
    'conversation_meta',
    'membership',
    'message',
    'episode',
    'episodic_memory',
    'summary',
    'kaos_session',
    'kaos_event',
    'ark_session',
    'ark_chunk',
  ])
    assert.ok(kinds.has(kind), `the export holds ${kind} records`);
  const memory = records.find((r) => r.kind === 'episodic_memory')!;
  assert.ok((memory['messageIds'] as string[]).length > 0, 'a memory names the messages it was made from');
  const summary = records.find((r) => r.kind === 'summary')!;
  assert.equal(typeof summary['endSequence'], 'number', 'a summary names its window');

  // A body cut short, and one with a bad line, store nothing: the import is all or nothing.
  const lines = exported.trim().split('\n');
  const cut = await importInto(target.base, who.admin, `${lines.slice(0, -1).join('\n')}\n`);
  assert.equal(cut.status, 400, JSON.stringify(cut.body));
  assert.equal(cut.body['code'], 'bad_request');
  const broken = [...lines];
  broken[4] = '{"kind": "message", "conversationId": 7}';
  const bad = await importInto(target.base, who.admin, broken.join('\n'));
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.equal((bad.body['details'] as { line: number }).line, 5);
  assert.match(String(bad.body['error']), /^line 5/);
  assert.equal(Number((await target.db.query('SELECT count(*) AS n FROM messages')).rows[0].n), 0);
  // A message whose conversation is neither on the target nor earlier in the body is refused by
  // its line, as the foreign key did before messages lost it (migration 0027).
  const message = lines.find((l) => (JSON.parse(l) as { kind: string }).kind === 'message')!;
  const orphan = await importInto(
    target.base,
    who.admin,
    [lines[0], message, JSON.stringify({ kind: 'end', counts: { message: 1 } })].join('\n'),
  );
  assert.equal(orphan.status, 400, JSON.stringify(orphan.body));
  assert.match(String(orphan.body['error']), /^lines 2-3: a message record names a conversation not stored before it/);
  assert.equal(Number((await target.db.query('SELECT count(*) AS n FROM messages')).rows[0].n), 0);

  const first = await importInto(target.base, who.admin, exported, '?justification=move%20server');
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(
    (first.body['imported'] as Record<string, number>)['message'],
    (records.at(-1)!['counts'] as Record<string, number>)['message'],
  );
  // the import wrote the search rows' keyword side; their vectors come from the target's indexer
  await waitFor('the imported search rows embedded', () => settled(target.db, world.group), 120_000);
  await analyzed(target.db);
  assert.deepEqual(await answers(target.base, who, world), before);

  // The second import goes through the CLI: an export to a file, the file sent to the target.
  const counts = await rowCounts(target.db);
  const dir = await mkdtemp(join(tmpdir(), 'memstream-export-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'export.ndjson');
  const adminToken = who.admin.authorization!.slice('Bearer '.length);
  const saved = await memstreamWithEnv(
    { MEMSTREAM_TOKEN: adminToken },
    ...['export', '--output', file, '--api-url', source.base, '--justification', 'backup'],
  );
  assert.equal(saved.code, 0, saved.stderr);
  assert.deepEqual(JSON.parse(saved.stdout.trim())['counts'], records.at(-1)!['counts']);
  assert.deepEqual((await readFile(file, 'utf8')).split('\n').slice(1), exported.split('\n').slice(1));
  const again = await memstreamWithEnv(
    { MEMSTREAM_TOKEN: adminToken },
    ...['import', '--format', 'memstream', '--input', file, '--api-url', target.base],
  );
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    Object.values(JSON.parse(again.stdout.trim())['imported'] as Record<string, number>).filter((n) => n > 0),
    [],
    'a second import stores nothing',
  );
  assert.deepEqual(await rowCounts(target.db), counts);
  assert.deepEqual(await answers(target.base, who, world), before);
  // A file that would add a member to a conversation the target holds: the CLI says so (exit 2).
  const grant = join(dir, 'grant.ndjson');
  const at = '2025-01-01T10:00:00.000000Z';
  const membership = { kind: 'membership', groupId: world.ms, userId: 'eve', accessLevel: 'manager', createdAt: at };
  await writeFile(
    grant,
    [exportHeader(at), membership, { kind: 'end', counts: { membership: 1 } }].map((r) => JSON.stringify(r)).join('\n'),
  );
  const granted = await memstreamWithEnv(
    { MEMSTREAM_TOKEN: adminToken },
    ...['import', '--format', 'memstream', '--input', grant, '--api-url', target.base],
  );
  assert.equal(granted.code, 2, granted.stderr);
  assert.match(granted.stderr, /1 conversation\(s\) refused/);
  assert.deepEqual(await rowCounts(target.db), counts);

  // The imported server goes on numbering after what it imported.
  const next = await ok(target.base, who.agent, 'POST', '/api/v1/memories', {
    group_id: world.group,
    message_id: 'after-import',
    create_time: '2025-01-02T10:00:00Z',
    sender: 'ann',
    content: 'One more point after the move.',
  });
  assert.ok(next);
  const { rows } = await target.db.query<{ seq: number; dup: number }>(
    `SELECT seq, (SELECT count(*) FROM messages x WHERE x.id = m.id)::int AS dup FROM messages m
     WHERE conversation_id = $1 AND message_id = 'after-import'`,
    [world.group],
  );
  assert.equal(Number(rows[0]!.seq), 8);
  assert.equal(rows[0]!.dup, 1, 'the new message has a row number of its own');

  // Every export and import is in the audit log, with counts and never content.
  const audit = await call(source.base, who.admin, 'GET', '/v1/admin/audit?action=export');
  const exportEntry = (audit.body['data'] as Array<Record<string, unknown>>).find(
    (e) => e['justification'] === 'move server',
  )!;
  assert.equal(exportEntry['status'], 200);
  assert.equal(exportEntry['target'], 'server');
  assert.equal(
    (exportEntry['counts'] as Record<string, number>)['message'],
    (records.at(-1)!['counts'] as Record<string, number>)['message'],
  );
  const imports = await call(target.base, who.admin, 'GET', '/v1/admin/audit?action=import');
  const statuses = (imports.body['data'] as Array<Record<string, unknown>>).map((e) => e['status']);
  assert.deepEqual(statuses, [400, 400, 400, 200, 200, 200]);
  for (const log of [audit.text, imports.text])
    for (const mark of Object.values(world.marks)) assert.ok(!log.includes(mark), 'no content in the audit log');
});

test("a person's export holds their own data and none of another person's", async (t) => {
  const source = await server(t);
  const who = {
    agent: { 'x-api-key': AGENT_KEY },
    bob: bearer(await userToken('bob')),
    dave: bearer(await userToken('dave')),
    carol: bearer(await userToken('carol')),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin'] } })),
  };
  const world = await writeEverywhere(source.base, who);

  const bob = await exportOf(source.base, who.bob, '/v1/me/export');
  assert.ok(bob.includes(world.marks.bob), "bob's conversation");
  assert.ok(bob.includes(world.marks.dave), "dave's message in bob's conversation is in the conversation bob owns");
  assert.ok(!bob.includes(world.marks.carol), "nothing of carol's");
  assert.ok(
    recordsOf(bob).some((r) => r.kind === 'kaos_session' && r['sessionId'] === world.kaosSession),
    "bob's KAOS session",
  );
  assert.ok(!bob.includes(world.group), 'nothing of a group bob is not in');

  const dave = await exportOf(source.base, who.dave, '/v1/me/export');
  assert.ok(dave.includes(world.marks.dave), "dave's own message");
  assert.ok(!dave.includes(world.marks.bob), "none of bob's messages, though dave may read them");
  assert.ok(!dave.includes(world.marks.carol));
  const daves = recordsOf(dave);
  assert.deepEqual(
    daves.filter((r) => r.kind === 'membership').map((r) => r['userId']),
    ['dave'],
    "dave's membership only",
  );
  assert.deepEqual(
    daves.filter((r) => r.kind === 'kaos_session' || r.kind === 'summary' || r.kind === 'episode'),
    [],
  );

  const carol = await exportOf(source.base, who.carol, '/v1/me/export');
  assert.ok(carol.includes(world.marks.carol));
  for (const mark of [world.marks.bob, world.marks.dave]) assert.ok(!carol.includes(mark));

  // An agent's session that names no person has `user` as its KAOS user_id and no owner: a person
  // whose id is `user` may not read it, so their export does not hold it either.
  const nobodys = (await ok(source.base, who.agent, 'POST', '/memory/sessions', { app_name: 'solo' }, KAOS))
    .session_id as string;
  await ok(
    source.base,
    who.agent,
    'POST',
    `/memory/sessions/${nobodys}/events`,
    [{ event_type: 'user_message', content: 'the agent alone knows quincewhistle' }],
    KAOS,
  );
  const user = bearer(await userToken('user'));
  assert.equal((await call(source.base, user, 'GET', `/memory/sessions/${nobodys}`, undefined, KAOS)).status, 404);
  const users = await exportOf(source.base, user, '/v1/me/export');
  assert.ok(!users.includes('quincewhistle'), "the agent's session is not in the export of a person named user");

  // an agent has no data of its own; a person may not export someone else's
  assert.equal((await call(source.base, who.agent, 'GET', '/v1/me/export')).status, 403);
  const refused = await call(source.base, who.bob, 'GET', '/v1/admin/exports?userId=carol');
  assert.equal(refused.status, 403);
  assert.equal(refused.body['code'], 'forbidden');
  const forCarol = await exportOf(source.base, who.admin, '/v1/admin/exports?userId=carol');
  assert.ok(forCarol.includes(world.marks.carol) && !forCarol.includes(world.marks.bob));
});

test('an import larger than the JSON body limit is read as it arrives; a JSON array of records is taken too', async (t) => {
  const target = await server(t);
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const id = uniqueName('big');
  const n = 4000;
  const at = '2025-01-01T00:00:00.000000Z';
  const filler = 'lorem ipsum dolor sit amet '.repeat(120);
  async function* body() {
    const line = (r: unknown) => new TextEncoder().encode(`${JSON.stringify(r)}\n`);
    yield line(exportHeader(at));
    yield line({
      kind: 'conversation',
      id,
      sourceApi: 'evermemos',
      groupId: null,
      nextSeq: n,
      title: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    for (let i = 0; i < n; i++)
      yield line({
        kind: 'message',
        conversationId: id,
        seq: i,
        id: i + 1,
        messageId: `m${i}`,
        senderId: 'ann',
        senderName: 'Ann',
        role: 'user',
        content: `${i} ${filler}`,
        createdAt: at,
        storedAt: at,
        referList: [],
        metadata: {},
        sourceApi: 'evermemos',
      });
    yield line({ kind: 'end', counts: { conversation: 1, message: n } });
  }
  let bytes = 0;
  const counted = async function* () {
    for await (const chunk of body()) {
      bytes += chunk.length;
      yield chunk;
    }
  };
  const res = await fetch(`${target.base}/v1/admin/imports`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    body: ReadableStream.from(counted()),
    duplex: 'half',
  } as RequestInit);
  const answer = (await res.json()) as { imported: Record<string, number> };
  assert.equal(res.status, 200, JSON.stringify(answer));
  assert.ok(bytes > 11 * 1024 * 1024, `the body was ${bytes} bytes`);
  assert.deepEqual(answer.imported, { conversation: 1, message: n });
  const stored = await target.db.query<{ n: string }>('SELECT count(*) AS n FROM messages WHERE conversation_id = $1', [
    id,
  ]);
  assert.equal(Number(stored.rows[0]!.n), n);

  const empty = await call(target.base, admin, 'POST', '/v1/admin/imports', []);
  assert.equal(empty.status, 400);
  assert.equal(empty.body['code'], 'bad_request');
  const asArray = await call(target.base, admin, 'POST', '/v1/admin/imports', [
    { kind: 'header', format: 'memstream-export', version: 2, server: 'x', exportedAt: at, scope: { kind: 'server' } },
  ]);
  assert.equal(asArray.status, 400);
  assert.match(String(asArray.body['error']), /version 1, not memstream-export version 2/);
});

test('an import whose id is too large for the database to index is refused by its line, not answered 500', async (t) => {
  const target = await server(t);
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const at = '2025-01-01T00:00:00.000000Z';
  // 1,000 characters (the format's bound) outside the BMP are 4 KB: random, so PostgreSQL cannot
  // compress the key under a B-tree entry's 2,704 bytes
  const id = Array.from({ length: 1000 }, () =>
    String.fromCodePoint(0x20000 + Math.floor(Math.random() * 40_000)),
  ).join('');
  const body = [
    exportHeader(at),
    {
      kind: 'conversation',
      id,
      sourceApi: 'memory-service',
      groupId: null,
      nextSeq: 0,
      title: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    },
    { kind: 'end', counts: { conversation: 1 } },
  ];
  const refused = await importInto(target.base, admin, body.map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body['code'], 'bad_request');
  assert.match(String(refused.body['error']), /^lines 2-3: a conversation record holds a value too large/);
  assert.equal((refused.body['details'] as { line: number }).line, 2);
  assert.ok(!String(refused.body['error']).includes(id.slice(0, 10)), 'the value is not repeated');
});

test("an import line with a __proto__ key or a number past a double's range is refused by its line, and nothing is stored", async (t) => {
  const target = await server(t);
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const at = '2025-01-01T00:00:00.000000Z';
  const before = await rowCounts(target.db);
  const conversation = (metadata: string) =>
    `{"kind": "conversation", "id": "c-kept", "sourceApi": "memory-service", "groupId": null, "nextSeq": 0, "title": null, "metadata": ${metadata}, "createdAt": "${at}", "updatedAt": "${at}", "deletedAt": null}`;
  // JSON.stringify cannot write either: the lines are written by hand. Without the refusal the
  // schema dropped __proto__ (metadata {}) and 1e400 was read as Infinity, stored as null.
  for (const [metadata, field] of [
    ['{"__proto__": {"admin": true}}', 'metadata.__proto__'],
    ['{"score": 1e400}', 'metadata.score'],
  ] as const) {
    const body = [
      JSON.stringify(exportHeader(at)),
      conversation(metadata),
      JSON.stringify({ kind: 'end', counts: { conversation: 1 } }),
    ].join('\n');
    const refused = await importInto(target.base, admin, body);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(String(refused.body['error']), new RegExp(`^line 2: .*invalid field ${field.replace('.', '\\.')}`));
    assert.equal((refused.body['details'] as { line: number }).line, 2);
  }
  assert.deepEqual(await rowCounts(target.db), before, 'nothing stored');
});

test('an imported memory whose id is longer than an episode number is forgotten by that id (event_id up to the id bound)', async (t) => {
  const target = await server(t);
  const admin = bearer(await userToken('alice', { claims: { roles: ['admin'] } }));
  const agent = { 'x-api-key': AGENT_KEY };
  const at = '2025-01-01T00:00:00.000000Z';
  const group = uniqueName('long-mem');
  // 300 characters: past the 200 the DELETE filter once allowed, within the 1,000 an import keeps
  const memoryId = `imported-${'m'.repeat(291)}`;
  const message = (seq: number) => ({
    kind: 'message',
    conversationId: group,
    seq,
    id: seq + 1,
    messageId: `m${seq}`,
    senderId: 'ann',
    senderName: 'Ann',
    role: 'user',
    content: `line ${seq} about the harbour`,
    createdAt: at,
    storedAt: at,
    referList: [],
    metadata: {},
    sourceApi: 'evermemos',
  });
  const records = [
    exportHeader(at),
    {
      kind: 'conversation',
      id: group,
      sourceApi: 'evermemos',
      groupId: null,
      nextSeq: 3,
      title: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    },
    message(0),
    message(1),
    message(2),
    {
      kind: 'episode',
      id: 1,
      conversationId: group,
      startSeq: 0,
      endSeq: 1,
      messageIds: ['m0', 'm1'],
      startTime: at,
      endTime: at,
      closeReason: 'flush',
      status: 'extracted',
      version: 1,
      createdAt: at,
      updatedAt: at,
    },
    {
      kind: 'episodic_memory',
      id: memoryId,
      episodeId: 1,
      conversationId: group,
      version: 1,
      userId: null,
      title: 'Ann: the harbour',
      content: 'Ann talked about the harbour.',
      occurredAt: at,
      endedAt: at,
      messageIds: ['m0', 'm1'],
      participants: ['ann'],
      extractor: 'offline-extractive',
      supersededAt: null,
      createdAt: at,
    },
    { kind: 'end', counts: { conversation: 1, message: 3, episode: 1, episodic_memory: 1 } },
  ];
  const imported = await importInto(target.base, admin, records.map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(imported.status, 200, JSON.stringify(imported.body));

  const deleted = await call(target.base, agent, 'DELETE', '/api/v1/memories?sync_mode=true', { event_id: memoryId });
  assert.equal(deleted.status, 200, deleted.text);
  const result = deleted.body['result'] as Record<string, unknown>;
  assert.deepEqual(result['filters'], ['event_id']);
  assert.equal(result['deleted_messages'], 2);
  assert.equal(result['deleted_memories'], 1);
  const memories = await target.db.query('SELECT id FROM episodic_memories WHERE conversation_id = $1', [group]);
  assert.deepEqual(memories.rows, [], 'the memory is gone');
  const kept = await target.db.query<{ message_id: string }>(
    'SELECT message_id FROM messages WHERE conversation_id = $1 ORDER BY seq',
    [group],
  );
  assert.deepEqual(
    kept.rows.map((r) => r.message_id),
    ['m2'],
    "only the memory's episode's messages went",
  );
});

test("mem0's get_all memories become the memories of their person, once however often imported", async (t) => {
  const target = await server(t);
  const admin = await userToken('alice', { claims: { roles: ['admin'] } });
  const bob = bearer(await userToken('bob'));
  const dir = await mkdtemp(join(tmpdir(), 'memstream-mem0-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'mem0.json');
  const created = '2024-07-25T23:57:00.108347-07:00';
  const mem0 = {
    results: [
      {
        id: crypto.randomUUID(),
        memory: 'Loves hiking in the Alps',
        user_id: 'bob',
        hash: 'a1',
        metadata: null,
        created_at: created,
        updated_at: created,
      },
      {
        id: crypto.randomUUID(),
        memory: 'Is allergic to peanuts',
        user_id: 'bob',
        hash: 'a2',
        metadata: { category: 'health' },
        created_at: created,
        updated_at: null,
      },
      {
        id: crypto.randomUUID(),
        memory: 'Prefers green tea',
        user_id: null,
        hash: 'a3',
        metadata: null,
        created_at: created,
      },
    ],
  };
  await writeFile(file, JSON.stringify(mem0));
  const args = ['import', '--format', 'mem0', '--input', file, '--user', 'carol', '--api-url', target.base];
  const first = await memstreamWithEnv({ MEMSTREAM_TOKEN: admin }, ...args);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(JSON.parse(first.stdout.trim())['imported'], {
    conversation: 2,
    membership: 2,
    episode: 3,
    episodic_memory: 3,
  });
  const listed = await ok(target.base, bob, 'GET', '/api/v1/memories?user_id=bob&memory_type=episodic_memory');
  const texts = JSON.stringify(listed);
  assert.ok(texts.includes('Loves hiking in the Alps') && texts.includes('Is allergic to peanuts'), texts);
  assert.ok(!texts.includes('green tea'), "carol's memory is not bob's");
  const found = await ok(
    target.base,
    bob,
    'GET',
    '/api/v1/memories/search?query=peanuts&user_id=bob&retrieve_method=keyword',
  );
  assert.ok(JSON.stringify(found).includes('Is allergic to peanuts'), JSON.stringify(found));
  const again = await memstreamWithEnv({ MEMSTREAM_TOKEN: admin }, ...args);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    Object.values(JSON.parse(again.stdout.trim())['imported'] as Record<string, number>).filter((n) => n > 0),
    [],
  );
});

test('distributed mode: an export imported through the edge and the gateway answers the same, and exports back the same records', async (t) => {
  const source = await server(t);
  const env = await distributedEnv(t, 'import', {
    ...ENV,
    REQUEST_SYNC_TIMEOUT_MS: '15000',
    INDEXER_GROUP_ID: uniqueName('indexer'),
  });
  const [edge] = (await startApi(t, env)) as [string];
  await startServices(t, env, ['indexer']);
  const db = new pg.Client({ connectionString: env['DATABASE_URL'] });
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));
  const who = {
    agent: { 'x-api-key': AGENT_KEY },
    bob: bearer(await userToken('bob')),
    dave: bearer(await userToken('dave')),
    carol: bearer(await userToken('carol')),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin', 'auditor'] } })),
  };
  const world = await writeEverywhere(source.base, who);
  await waitFor('memories, summaries and vectors made', () => settled(source.db, world.group), 120_000);
  await analyzed(source.db);
  const { before, exported } = await answersAndExport(source.base, who, world, '/v1/admin/exports');

  const imported = await importInto(edge, who.admin, exported);
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  await waitFor('the imported search rows embedded by the indexer', () => settled(db, world.group), 120_000);
  await analyzed(db);
  assert.deepEqual(await answers(edge, who, world), before);
  const back = await exportOf(edge, who.admin, '/v1/admin/exports');
  assert.deepEqual(back.split('\n').slice(1), exported.split('\n').slice(1));
});
