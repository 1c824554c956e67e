import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemstreamClient, MemstreamError } from '@memstream/client';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, waitFor } from '../helpers/infra.js';
import { TEST_JWT_SECRET } from '../../harness/credentials.js';
import { conversationsInEveryFamily, people, sharedConversation, writeChat } from './console/console-fixture.js';

/**
 * memstream's reads for the console, through the client against the embedded server with
 * authentication on: the list of conversations across families shows each person only what they
 * may read, and the dead-letter records only auditors and admins.
 */
const AGENT_KEY = 'console-reads-agent-key-0123456789';

type Client = MemstreamClient;
type ListQuery = NonNullable<Parameters<Client['console']['conversations']>[0]>;

/** Every page of the list, walked with its cursor, one row a page: the ids in order. */
async function walk(client: Client, query: ListQuery = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.console.conversations({ ...query, limit: 1, ...(cursor ? { cursor } : {}) });
    ids.push(...page.data.map((c) => c.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

const idsOf = async (client: Client, query: ListQuery = {}) =>
  (await client.console.conversations({ ...query, limit: 200 })).data.map((c) => c.id).sort();

async function refusal(call: Promise<unknown>): Promise<MemstreamError> {
  const err = await call.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof MemstreamError, String(err));
  return err;
}

test('the conversations of every family in one list: a person sees only their own and those shared with them; dead letters are for auditors', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_API_KEYS: `reads-agent:${AGENT_KEY}`,
    AUTH_AUDITOR_USERS: 'erin',
    // the Memory Agent (offline) summarizes from the first message on
    MEMORY_SUMMARIZE_AFTER_SEQ: '0',
    DATABASE_URL: await freshDatabase(t),
  });
  const cast = await people(base, ['alice', 'bob', 'carol', 'erin']);
  const [alice, bob, carol, erin] = [cast.alice.client, cast.bob.client, cast.carol.client, cast.erin.client];
  const agent = new MemstreamClient({ baseUrl: base, apiKey: AGENT_KEY });

  const kaos = await conversationsInEveryFamily(alice, 'alice', 'alice-trip', ['The trip is in May.']);
  const shared = await sharedConversation(alice, 'carol', 'Alice and Carol plan');
  await writeChat(bob, 'bob-notes', 'bob', ['Bob’s own notes.']);
  const bobs = await bob.memoryService.user.create({ title: 'Bob diary' });

  const alicesAll = await alice.console.conversations({ limit: 200 });
  const kaosRow = alicesAll.data.find((c) => c.family === 'kaos');
  assert.equal(kaosRow?.session?.sessionId, kaos.session_id);
  const aliceIds = alicesAll.data.map((c) => c.id).sort();
  assert.deepEqual(
    alicesAll.data.map((c) => c.family).sort(),
    ['ark', 'evermemos', 'kaos', 'memory-service'],
    'one of each family alice wrote',
  );
  assert.deepEqual(aliceIds, ['alice-ark', 'alice-trip', kaosRow!.id, shared].sort());

  await t.test('a person sees nothing of another’s conversations, and what is shared with them', async () => {
    assert.deepEqual(await idsOf(bob), ['bob-notes', bobs.id].sort());
    assert.deepEqual(await idsOf(carol), [shared]);
    // filters never widen: naming alice, or her conversation, finds nothing for bob
    assert.deepEqual(await idsOf(bob, { person: 'alice' }), []);
    assert.deepEqual(await idsOf(bob, { group: 'alice' }), []);
  });

  await t.test('the Memory Agent’s windows: the conversations it summarized, each person only theirs', async () => {
    await waitFor('alice-trip summarized', async () =>
      (await idsOf(alice, { family: 'memory-agent' })).includes('alice-trip'),
    );
    const summarized = (await alice.console.conversations({ family: 'memory-agent' })).data;
    assert.ok(
      summarized.every((c) => c.summaries > 0 && aliceIds.includes(c.id)),
      JSON.stringify(summarized),
    );
    await waitFor('bob-notes summarized', async () =>
      (await idsOf(bob, { family: 'memory-agent' })).includes('bob-notes'),
    );
    assert.ok((await idsOf(bob, { family: 'memory-agent' })).every((id) => id === 'bob-notes' || id === bobs.id));
  });

  await t.test(
    'an auditor’s role widens nothing here (everyone’s is the audited admin listing); an agent sees all',
    async () => {
      assert.deepEqual(await idsOf(erin), []);
      const audited = await erin.admin.listConversations({ limit: 1000 });
      assert.ok(audited.data.some((c) => c.id === shared));
      const everyone = await idsOf(agent);
      for (const id of [...aliceIds, 'bob-notes', bobs.id]) assert.ok(everyone.includes(id), `the agent sees ${id}`);
    },
  );

  await t.test('filters: family, group or session, person and last activity', async () => {
    assert.deepEqual(await idsOf(alice, { family: 'ark' }), ['alice-ark']);
    assert.deepEqual(await idsOf(alice, { group: 'TRIP' }), ['alice-trip']);
    assert.deepEqual(await idsOf(alice, { group: 'alice-kaos' }), [kaosRow!.id], 'a KAOS session by its session id');
    assert.deepEqual(await idsOf(alice, { group: 'carol plan' }), [shared], 'by title');
    assert.deepEqual(await idsOf(alice, { person: 'carol' }), [shared], 'a member');
    assert.deepEqual(await idsOf(alice, { family: 'evermemos', person: 'alice' }), ['alice-trip'], 'a sender');
    const now = Date.now();
    assert.deepEqual(await idsOf(alice, { from: new Date(now + 60_000).toISOString() }), []);
    assert.deepEqual(await idsOf(alice, { to: new Date(now - 3_600_000).toISOString() }), []);
    assert.deepEqual(await idsOf(alice, { from: new Date(now - 3_600_000).toISOString() }), aliceIds);
  });

  await t.test('the cursor walks the list once, most recently active first', async () => {
    const listed = (await alice.console.conversations({ limit: 200 })).data;
    assert.deepEqual(
      await walk(alice),
      listed.map((c) => c.id),
    );
    const times = listed.map((c) => c.lastActivity);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  await t.test('bad input is a 400 in memory-service’s shape', async () => {
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cursors = [
      'bm90LWEtY3Vyc29y',
      made(['99999999999999999999', 'x']),
      made(['999999999999999999', 'x']),
      made(['1', 'nul\u0000id']),
      made([1, 'x']),
    ];
    for (const query of [
      ...cursors.map((cursor) => ({ cursor })),
      { from: 'yesterday' },
      { limit: 0 },
      { family: 'mem0' },
    ]) {
      const err = await refusal(alice.console.conversations(query as ListQuery));
      assert.equal(err.status, 400, JSON.stringify(query));
      assert.equal((err.body as { code?: string }).code, 'bad_request', JSON.stringify(err.body));
    }
  });

  await t.test(
    'dead-letter records: refused to a person and to an agent without a role; an auditor reads every topic',
    async () => {
      for (const caller of [bob, agent]) assert.equal((await refusal(caller.admin.deadLetters())).status, 403);
      const letters = await erin.admin.deadLetters({ limit: 5 });
      assert.ok(letters.data.length >= 5, 'one entry per dead-letter topic');
      for (const topic of letters.data) {
        assert.match(topic.topic, /\.dlq$/);
        assert.deepEqual(topic.records, []);
      }
      const audit = await erin.admin.auditLog({ action: 'listDeadLetters' });
      assert.deepEqual(
        audit.data.map((e) => [e.actorId, e.status]),
        [
          ['bob', 403],
          ['reads-agent', 403],
          ['erin', 200],
        ],
      );
    },
  );

  // Last: it makes erin a member, which the auditor's test above counts on her not being.
  await t.test(
    'filtering by person tells a reader no more of the members than the API does: who is a member is for managers',
    async () => {
      const circle = await sharedConversation(alice, 'carol', 'Alice, Carol and Erin');
      await alice.memoryService.user.share(circle, 'erin', 'reader');
      assert.equal(
        (await refusal(carol.memoryService.user.memberships(circle))).status,
        403,
        'a reader may not list the members',
      );
      assert.deepEqual(await idsOf(alice, { person: 'erin' }), [circle], 'the owner finds a member');
      assert.deepEqual(await idsOf(carol, { person: 'erin' }), [], 'a reader does not learn who else is a member');
      assert.deepEqual(
        await idsOf(carol, { person: 'alice' }),
        [circle, shared].sort(),
        'the owner is shown on the row anyway',
      );
      assert.deepEqual(
        await idsOf(carol, { person: 'carol' }),
        [circle, shared].sort(),
        'nor is her own membership hidden',
      );
    },
  );
});
