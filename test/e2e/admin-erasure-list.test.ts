import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { freshDatabase } from '../helpers/infra.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { ADMIN_AUTH_ENV, KEYS } from './admin-contract.js';
import { http } from './erasure-contract.js';

/**
 * The two reads the console's Admin view needs beside the governance API: which admin roles the
 * caller holds (any caller may ask, and asking is not an admin call), and the latest erasures.
 */
test('the roles a caller holds, and the latest erasures newest first for auditors only', async (t: TestContext) => {
  const base = await embeddedMemstream(t, { ...ADMIN_AUTH_ENV, DATABASE_URL: await freshDatabase(t) });
  const admin = { 'x-api-key': KEYS.ops };
  const auditor = bearer(await userToken('erin'));
  const person = bearer(await userToken('bob'));
  const agent = { 'x-api-key': KEYS.assistant };

  await t.test('each caller is told its own roles, and asking leaves nothing in the audit log', async () => {
    for (const [who, headers, roles] of [
      ['admin', admin, ['admin', 'auditor']],
      ['auditor', auditor, ['auditor']],
      ['person', person, []],
      ['agent', agent, []],
    ] as const) {
      const reply = await http(base, 'GET', '/v1/admin/roles', headers);
      assert.equal(reply.status, 200, who);
      assert.deepEqual(reply.body, { roles }, who);
    }
    const log = await http(base, 'GET', '/v1/admin/audit?limit=1000', admin);
    assert.deepEqual(
      log.body.data.filter((e: { action: string }) => e.action !== 'listAuditLog'),
      [],
      'only the audit reads themselves are logged',
    );
  });

  await t.test(
    'an auditor lists the erasures newest first, one person’s with userId; a person is refused',
    async () => {
      const ids: string[] = [];
      for (const userId of ['carol', 'dave', 'carol']) {
        const accepted = await http(base, 'POST', '/v1/admin/erasures', admin, { userId, justification: 'asked' });
        assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
        ids.push(accepted.body.id);
      }
      const all = await http(base, 'GET', '/v1/admin/erasures', auditor);
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.deepEqual(
        all.body.data.map((r: { id: string }) => r.id),
        [...ids].reverse(),
      );
      assert.equal(all.body.data[0].requestedBy, 'agent:ops');
      assert.deepEqual(Object.keys(all.body.data[0].counts).sort(), [
        'ark',
        'evermemos',
        'kaos',
        'memory-agent',
        'memory-service',
      ]);
      const carol = await http(base, 'GET', '/v1/admin/erasures?userId=carol&limit=1', auditor);
      assert.deepEqual(
        carol.body.data.map((r: { id: string }) => r.id),
        [ids[2]],
      );
      for (const bad of ['limit=0', 'limit=201', 'limit=x', 'userId=']) {
        const reply = await http(base, 'GET', `/v1/admin/erasures?${bad}`, auditor);
        assert.equal(reply.status, 400, `${bad}: ${JSON.stringify(reply.body)}`);
        assert.equal(typeof reply.body.error, 'string', bad);
      }
      for (const headers of [person, agent]) {
        const refused = await http(base, 'GET', '/v1/admin/erasures', headers);
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'forbidden');
      }
      // (a query refused by validation never reaches the handler, as with the audit log's own route)
      const log = await http(base, 'GET', '/v1/admin/audit?action=listErasures', admin);
      assert.deepEqual(
        log.body.data.map((e: { actorId: string; status: number }) => `${e.actorId} ${e.status}`),
        ['erin 200', 'erin 200', 'bob 403', 'assistant 403'],
      );
    },
  );
});
