import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase, uniqueName, waitFor } from '../helpers/infra.js';
import { residueOf } from '../helpers/residue.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { KEYS } from './admin-contract.js';
import { ERASURE_ENV, http, markerWord, type Reply } from './erasure-contract.js';

const KAOS = { 'x-kaos-agent': 'agent-x' };

function ok(reply: Reply, status: number, what: string): any {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/**
 * A KAOS session an agent made for Bob keeps `bob` as its KAOS user id after Bob hands the
 * conversation over to Ada. Erasing Bob then removes his turns, not Ada's conversation: she owns
 * it, and her words and her ownership stay, as with a memory-service conversation Bob gave away.
 */
test('an erasure removes a KAOS session whole only while nobody else owns it: one given away keeps its new owner and her words', async (t: TestContext) => {
  const databaseUrl = await freshDatabase(t);
  const base = await embeddedMemstream(t, { ...ERASURE_ENV, DATABASE_URL: databaseUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  // the database is dropped when the test ends: this client closes first
  db.on('error', () => {});
  t.after(() => db.end());
  const prefix = uniqueName('ko').replace('_', '');
  const bob = `${prefix}bob`;
  const ada = `${prefix}ada`;
  const mb = markerWord('bob');
  const ma = markerWord('ada');
  const as = {
    bob: bearer(await userToken(bob)),
    ada: bearer(await userToken(ada)),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin'] } })),
    agent: { 'x-api-key': KEYS.assistant, ...KAOS },
  };

  // The agent makes a session for Bob (he owns it) and records his turn.
  const session = ok(
    await http(base, 'POST', '/memory/sessions', as.agent, { app_name: 'planner', user_id: bob }),
    201,
    'session',
  ).session_id as string;
  ok(
    await http(base, 'POST', `/memory/sessions/${session}/events`, as.agent, {
      event_type: 'user_message',
      content: `${mb} asks the planner`,
    }),
    201,
    "bob's turn",
  );
  const { rows } = await db.query<{ conversation_id: string }>(
    'SELECT conversation_id FROM kaos_sessions WHERE session_id = $1',
    [session],
  );
  const conversation = rows[0]!.conversation_id;

  // Bob makes Ada a member and hands the conversation over; she accepts and writes in it.
  ok(
    await http(base, 'POST', `/v1/conversations/${conversation}/memberships`, as.bob, {
      userId: ada,
      accessLevel: 'writer',
    }),
    201,
    'shared with ada',
  );
  const offer = ok(
    await http(base, 'POST', '/v1/ownership-transfers', as.bob, { conversationId: conversation, newOwnerUserId: ada }),
    201,
    'offer',
  );
  ok(await http(base, 'POST', `/v1/ownership-transfers/${offer.id}/accept`, as.ada), 204, 'ada accepts');
  ok(
    await http(base, 'POST', `/v1/conversations/${conversation}/messages`, as.ada, {
      content: [{ type: 'text', text: `${ma} takes over the plan` }],
    }),
    201,
    'ada writes',
  );

  const job = ok(
    await http(base, 'POST', '/v1/admin/erasures', as.admin, { userId: bob, justification: 'test' }),
    202,
    'erasure',
  );
  const done = await waitFor(
    'the erasure completed',
    async () => {
      const r = await http(base, 'GET', `/v1/admin/erasures/${job.id}`, as.admin);
      return r.body?.status === 'completed' ? r.body : undefined;
    },
    60_000,
  );

  assert.deepEqual(await residueOf(db, [mb]), [], "bob's words are gone");
  assert.equal(done.counts.kaos.postgres.conversationGroups ?? 0, 0, "ada's conversation is not bob's");
  const adas = await db.query('SELECT 1 FROM messages WHERE conversation_id = $1 AND sender_id = $2', [
    conversation,
    ada,
  ]);
  assert.equal(adas.rowCount, 1, "ada's message stays");
  const owner = await db.query<{ user_id: string }>(
    `SELECT user_id FROM conversation_memberships WHERE group_id = $1 AND access_level = 'owner'`,
    [conversation],
  );
  assert.deepEqual(
    owner.rows.map((r) => r.user_id),
    [ada],
    'ada still owns it',
  );
  const read = await http(base, 'GET', `/v1/conversations/${conversation}`, as.ada);
  assert.equal(read.status, 200, `ada still reads her conversation: ${JSON.stringify(read.body)}`);
});
