import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedDataDir } from '../helpers/embedded-data-dir.js';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { residueOf } from '../helpers/residue.js';
import { bearer, TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';
import { http, markerWord } from './erasure-contract.js';

const CONVERSATIONS = 30;
const ENV = {
  AUTH_JWT_SECRET: TEST_JWT_SECRET,
  // one group per transaction: the job commits many times before it is cut
  ERASURE_BATCH_SIZE: '1',
  // a dead process's job is taken over this soon after its last sign of life
  ERASURE_LEASE_MS: '1500',
  ERASURE_SWEEP_INTERVAL_MS: '200',
};

test('an erasure cut by SIGKILL of the embedded process group completes after restart, everything removed and counted once', async (t: TestContext) => {
  const server = await embeddedDataDir(t, { prefix: 'memstream-erase-crash-', env: ENV });
  const pia = uniqueName('pia');
  const as = {
    pia: bearer(await userToken(pia)),
    quin: bearer(await userToken(uniqueName('quin'))),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin'] } })),
  };
  const word = markerWord('pia');
  const say = async (base: string, who: Record<string, string>, id: string, text: string) =>
    assert.equal(
      (await http(base, 'POST', `/v1/conversations/${id}/messages`, who, { content: [{ type: 'text', text }] })).status,
      201,
    );
  const conversation = async (base: string, who: Record<string, string>) =>
    (await http(base, 'POST', '/v1/conversations', who, { title: 'c' })).body.id as string;

  let proc = await server.start();
  for (let i = 0; i < CONVERSATIONS; i++)
    await say(proc.base, as.pia, await conversation(proc.base, as.pia), `${word} ${i}`);
  const shared = await conversation(proc.base, as.quin);
  const shareBody = { userId: pia, accessLevel: 'writer' };
  assert.equal(
    (await http(proc.base, 'POST', `/v1/conversations/${shared}/memberships`, as.quin, shareBody)).status,
    201,
  );
  for (let i = 0; i < 2; i++) {
    await say(proc.base, as.quin, shared, `quin keeps this ${i}`);
    await say(proc.base, as.pia, shared, `${word} in quin's conversation ${i}`);
  }

  // The job is cut inside its third step: it waits on a row this test holds, after two steps committed.
  const holder = await server.database();
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM conversation_memberships WHERE group_id = $1 AND user_id = $2 FOR UPDATE', [
    shared,
    pia,
  ]);
  const accepted = await http(proc.base, 'POST', '/v1/admin/erasures', as.admin, {
    userId: pia,
    justification: 'crash test',
  });
  assert.equal(accepted.status, 202);
  const receipt = async (base: string) =>
    (await http(base, 'GET', `/v1/admin/erasures/${accepted.body.id}`, as.admin)).body;
  const midway = await waitFor(
    'the job inside its third step',
    async () => {
      const r = await receipt(proc.base);
      return r.step === 'keyed-records' ? r : undefined;
    },
    60_000,
  );
  assert.equal(midway.status, 'running');
  assert.equal(midway.counts['memory-service'].postgres.conversationGroups, CONVERSATIONS);
  await proc.crash();
  await holder.end().catch(() => undefined);

  proc = await server.start();
  const ended = await waitFor(
    'the receipt completed after restart',
    async () => {
      const r = await receipt(proc.base);
      return r.status === 'completed' ? r : undefined;
    },
    60_000,
  );
  const counts = ended.counts['memory-service'];
  assert.equal(counts.postgres.conversationGroups, CONVERSATIONS, 'each conversation removed and counted once');
  assert.equal(counts.postgres.messages, CONVERSATIONS + 2);
  assert.equal(counts.redis.responseStreams, CONVERSATIONS);
  assert.ok(counts.postgres.memberships >= CONVERSATIONS + 1, "her memberships, of Quin's conversation too");
  assert.ok(Date.parse(ended.completedAt) > Date.parse(ended.startedAt));

  const db = await server.database();
  try {
    // the bus journal too: the transport step ran once the restarted process took the job over
    assert.deepEqual(await residueOf(db, [word]), []);
    const { rows } = await db.query('SELECT content FROM messages WHERE conversation_id = $1 ORDER BY seq', [shared]);
    assert.deepEqual(
      rows.map((r) => r.content),
      ['quin keeps this 0', 'quin keeps this 1'],
    );
  } finally {
    await db.end();
  }
});
