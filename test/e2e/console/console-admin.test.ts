import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { MemstreamClient } from '@memstream/client';
import { embeddedMemstream } from '../../helpers/embedded.js';
import { freshDatabase } from '../../helpers/infra.js';
import { screenshot } from '../../../harness/browser.js';
import { ERASURE_ENV } from '../erasure-contract.js';
import { navLinks, signIn, until, WAIT } from './console-page.js';
import { consoleBrowser, people, writeChat } from './console-fixture.js';

/**
 * The console's Admin view in a real Chromium against the embedded server with authentication
 * on: ada holds the admin role, erin the auditor role (both named in the server's settings, as
 * an operator names them), bob none. Screenshots go where console.test.ts puts its own.
 */
const ERASED = 'carol';

async function messagesOf(client: MemstreamClient, group: string): Promise<string[]> {
  const page = await client.evermemos.list({ group_id: group, limit: 100 });
  return page.result.memories.map((m) => ('content' in m ? String(m.content) : ''));
}

test('the console’s Admin view: an admin erases a person and reads the receipt; an auditor reads; a person sees none', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    ...ERASURE_ENV,
    AUTH_ADMIN_USERS: 'ada',
    DATABASE_URL: await freshDatabase(t),
  });
  const { browser, shots } = await consoleBrowser(t);
  const cast = await people(base, ['ada', 'erin', 'bob', ERASED]);
  const [ada, carol] = [cast.ada.client, cast[ERASED].client];
  const lines = ['My flat is on Rua das Flores.', 'My phone number ends in 4471.', 'Please forget me after May.'];
  await writeChat(carol, 'carol-notes', ERASED, lines);
  await until(async () => (await messagesOf(carol, 'carol-notes')).length === lines.length, 'carol’s messages');

  await t.test(
    'an admin erases a person from the Admin view and reads the receipt until it completes; exports and evicts, each justified',
    async () => {
      const page = await browser.page();
      await signIn(page, base, cast.ada.token);
      assert.deepEqual(await navLinks(page), ['Conversations', 'Search', 'Pipeline', 'Admin']);
      await page.getByRole('link', { name: 'Admin', exact: true }).click();
      const form = page.getByRole('form', { name: 'Erase a person' });
      await form.waitFor(WAIT);
      await form.getByLabel('Person to erase').fill(ERASED);
      await form.getByLabel(/Justification/).fill('Ticket 4471: carol asked to be forgotten');
      // Keyboard only: Enter in the person field submits the form.
      await form.getByLabel('Person to erase').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/console\/admin\/erasures\/[0-9a-f-]{36}$/, WAIT);
      const status = page.getByTestId('erasure-status');
      await until(async () => (await status.textContent()) === 'completed', 'the erasure to complete', 60_000);
      assert.notEqual(await page.getByTestId('erasure-completed').locator('time').count(), 0);
      const counts =
        (await page.getByTestId('erasure-counts').locator('tr[data-family="evermemos"]').textContent()) ?? '';
      const removed = [...counts.matchAll(/: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      assert.ok(removed >= lines.length, `the receipt counts ${removed} in evermemos: ${counts}`);
      assert.deepEqual(await messagesOf(ada, 'carol-notes'), [], 'carol’s messages are gone');
      await screenshot(page, shots, 'admin-erasure-receipt');

      await page.getByRole('link', { name: 'Admin', exact: true }).first().click();
      const row = page.getByTestId('erasures').locator('tbody tr').first();
      await row.waitFor(WAIT);
      assert.match((await row.textContent()) ?? '', /carol[\s\S]*completed[\s\S]*ada/);
      const entry = page.getByTestId('audit-log').locator('tr[data-audit-action="erasePerson"]');
      await entry.waitFor(WAIT);
      assert.match((await entry.textContent()) ?? '', /ada[\s\S]*admin[\s\S]*carol[\s\S]*Ticket 4471[\s\S]*202/);
      await screenshot(page, shots, 'admin');

      // the other two actions, each with its justification: an export offered as a file, an eviction followed to its end
      const exporting = page.getByRole('form', { name: 'Export data' });
      await exporting.getByLabel(/Justification/).fill('Backup before the migration');
      await exporting.getByRole('button', { name: 'Export' }).click();
      const file = exporting.getByTestId('export-file');
      await file.waitFor(WAIT);
      assert.match((await file.textContent()) ?? '', /memstream-export-all\.ndjson \(\d+ records\)/);
      const evicting = page.getByRole('form', { name: 'Evict' });
      await evicting.getByLabel(/Justification/).fill('Quarterly retention');
      await evicting.getByRole('button', { name: 'Evict' }).click();
      const job = evicting.getByTestId('eviction-job');
      await until(async () => /completed, 100%/.test((await job.textContent()) ?? ''), 'the eviction to complete');
      const actions = await ada.admin.auditLog({ limit: 1000 });
      const justified = actions.data.filter((e) => e.action === 'export' || e.action === 'evict');
      assert.deepEqual(
        justified.map((e) => `${e.action}: ${e.justification}`),
        ['export: Backup before the migration', 'evict: Quarterly retention'],
      );
      assert.deepEqual(page.errors, []);
      await page.close();
    },
  );

  await t.test('an auditor reads the erasures, their receipts and the audit log, with no action offered', async () => {
    const page = await browser.page();
    await signIn(page, base, cast.erin.token);
    assert.deepEqual(await navLinks(page), ['Conversations', 'Search', 'Pipeline', 'Admin']);
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByTestId('erasures').waitFor(WAIT);
    await page.getByTestId('audit-log').waitFor(WAIT);
    assert.equal(await page.getByRole('form', { name: 'Erase a person' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: 'Export data' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: 'Evict' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /Erase|Export|Evict/ }).count(), 0);
    await screenshot(page, shots, 'admin-auditor');
    await page.getByRole('link', { name: `Receipt of the erasure of ${ERASED}` }).click();
    await until(async () => (await page.getByTestId('erasure-status').textContent()) === 'completed', 'the receipt');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  await t.test('a person without a role sees no Admin view, not even at its address', async () => {
    const page = await browser.page();
    await signIn(page, base, cast.bob.token);
    assert.deepEqual(await navLinks(page), ['Conversations', 'Search', 'Pipeline']);
    const receipt = (await ada.admin.erasures({ limit: 1 })).data[0]!.id;
    for (const view of ['/console/admin', `/console/admin/erasures/${receipt}`]) {
      await page.goto(`${base}${view}`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor(WAIT);
      const text = (await page.locator('main').textContent()) ?? '';
      assert.doesNotMatch(text, /carol|erasure|audit/i, `${view}: ${text}`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
