import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemstreamClient } from '@memstream/client';
import { embeddedMemstream } from '../../helpers/embedded.js';
import { TEST_JWT_SECRET } from '../../../harness/credentials.js';
import { startModelServer } from '../../../harness/model-server.js';
import { screenshot } from '../../../harness/browser.js';
import { consoleBrowser, people, writeChat } from './console-fixture.js';
import { navLinks, signIn, until, WAIT } from './console-page.js';

/**
 * The console in a real Chromium against the embedded server with authentication on. Its model
 * (summaries) and embeddings come from a loopback stand-in, which the lag test holds to stall
 * the indexer. Screenshots go to a temporary folder, or to MEMSTREAM_CONSOLE_SHOTS (docs/console
 * for the README's).
 */
const AGENT_KEY = 'console-agent-key-0123456789abcdef';

test('the console: sign in, live messages, memories, search, access and the pipeline, in Chromium', async (t: TestContext) => {
  const model = await startModelServer();
  t.after(() => model.close());
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_API_KEYS: `console-agent:${AGENT_KEY}`,
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_BASE_URL: model.baseUrl,
    EMBEDDING_API_KEY: 'test',
    EMBEDDING_MODEL: 'fake-embedding',
    EMBEDDING_DIMENSIONS: '12',
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test',
  });
  const { browser, shots } = await consoleBrowser(t);
  const cast = await people(base, ['alice', 'bob']);
  const [alice, aliceToken] = [cast.alice.client, cast.alice.token];
  const agent = new MemstreamClient({ baseUrl: base, apiKey: AGENT_KEY });
  await writeChat(alice, 'lisbon-trip', 'alice', [
    'Shall we plan the offsite in Lisbon this spring?',
    'The venue near the river has a room for twelve people.',
    'Flights from Berlin are cheapest on Tuesdays.',
    'I booked the venue for the second week of May.',
    'Remember the pastel de nata tasting on Thursday.',
    'Budget approved: 9,000 euros in total.',
    'Carol will send the agenda by Friday.',
  ]);
  await agent.memoryService.agent.appendMessages('lisbon-trip', {
    messages: [{ role: 'assistant', content: 'Noted: the offsite is in Lisbon in the second week of May.' }],
  });
  await alice.evermemos.flush('lisbon-trip');

  const page = await browser.page();

  await t.test('signs in with a person’s token; a refused token is told so, and no admin view is offered', async () => {
    await page.goto(`${base}/console/`);
    await page.getByLabel('Token', { exact: true }).fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The server refused these credentials.').waitFor(WAIT);
    await signIn(page, base, aliceToken);
    assert.equal(await page.getByTestId('signed-in-as').textContent(), 'alice');
    // alice holds no admin role: no Admin view (console-admin.test.ts has those who do)
    assert.deepEqual(await navLinks(page), ['Conversations', 'Search', 'Pipeline']);
    await page.getByRole('row', { name: /lisbon-trip/ }).waitFor(WAIT);
    await screenshot(page, shots, 'conversations');
  });

  await t.test('a message written through the API appears in the open conversation without a reload', async () => {
    await page.goto(`${base}/console/conversations/lisbon-trip`);
    await page.locator('[data-testid="live-state"][data-state="live"]').waitFor(WAIT);
    // (Expressions as strings: the page's globals are not the test's, and its types have no DOM.)
    await page.evaluate('window.sameDocument = true');
    await alice.evermemos.write({
      group_id: 'lisbon-trip',
      message_id: 'lisbon-trip-live',
      create_time: new Date(Date.UTC(2025, 4, 8, 10, 0)).toISOString(),
      sender: 'alice',
      content: 'Live: the hotel confirmed our rooms.',
    });
    const row = page.locator('tr[data-message-id="lisbon-trip-live"]');
    await row.waitFor(WAIT);
    assert.match((await row.textContent()) ?? '', /alice[\s\S]*user[\s\S]*history[\s\S]*the hotel confirmed/);
    assert.equal(await page.evaluate('window.sameDocument'), true, 'the page was not reloaded');
    const assistant = page.getByRole('row', { name: /Noted: the offsite/ });
    assert.match((await assistant.textContent()) ?? '', /assistant/);
    await screenshot(page, shots, 'conversation-live');
  });

  await t.test('a memory leads to the messages it came from, and a message back to its memories', async () => {
    await page.getByRole('link', { name: 'Memories', exact: true }).click();
    const sources = page.getByTestId('episode-sources').first();
    await sources.waitFor(WAIT);
    const count = Number(((await sources.textContent()) ?? '').match(/(\d+) source/)![1]);
    assert.ok(count >= 1, `${count} source messages`);
    await screenshot(page, shots, 'memories');
    await sources.click();
    await page.locator('tr.marked').first().waitFor(WAIT);
    assert.equal(await page.locator('tr.marked').count(), count);
    await page.getByRole('link', { name: /memories made from message 3$/ }).click();
    await page.getByText('Memories made from message').waitFor(WAIT);
    assert.ok((await page.locator('[data-memory-id]').count()) >= 1);
    assert.match(new URL(page.url()).search, /message=lisbon-trip-4/);
  });

  await t.test('run a search and read the score parts', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Query').fill('venue in Lisbon');
    await page.getByLabel('Mode').selectOption('keyword');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('hits').locator('li').first();
    await first.getByTestId('score-parts').waitFor(WAIT);
    const score = Number(await first.getByTestId('score').textContent());
    assert.ok(score > 0 && score <= 1, `score ${score}`);
    assert.match((await first.getByTestId('score-keyword').textContent()) ?? '', /^(\d\.\d{3}) \(#1\)$/);
    assert.equal(Number(((await first.getByTestId('score-keyword').textContent()) ?? '').split(' ')[0]), score);
    assert.equal(await first.getByTestId('score-vector').textContent(), '—', 'a keyword search runs no vector list');

    await page.getByLabel('Mode').selectOption('hybrid');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/method=hybrid/);
    // (the keyword hits stay on the page until the hybrid ones replace them; only a fusion has a vector term)
    await page.getByTestId('hits').locator('tr[data-term="vector"]').first().waitFor(WAIT);
    // What the page shows, hit by hit: the terms (weight, value), the divisor and the fused score.
    const shown = await page.evaluate(
      `[...document.querySelectorAll('[data-testid="hits"] > li')].map(li => ({
        id: li.dataset.hitId,
        terms: [...li.querySelectorAll('tr[data-term]')].map(tr => ({
          name: tr.dataset.term,
          weight: Number(tr.querySelector('[data-testid="term-weight"]').textContent),
          value: Number(tr.querySelector('[data-testid="term-value"]').textContent),
        })),
        divisor: Number(li.querySelector('[data-testid="divisor"]').textContent),
        fused: Number(li.querySelector('[data-testid="fused"]').textContent),
        keyword: li.querySelector('[data-testid="score-keyword"]').textContent,
        vector: li.querySelector('[data-testid="score-vector"]').textContent,
      }))`,
    );
    const hits = shown as {
      id: string;
      terms: { name: string; weight: number; value: number }[];
      divisor: number;
      fused: number;
      keyword: string;
      vector: string;
    }[];
    assert.ok(hits.length > 0);
    // (More hits than the page's ten, from the same candidate pool, so each shown hit is found by id.)
    const api = await alice.evermemos.search({
      query: 'venue in Lisbon',
      retrieve_method: 'hybrid',
      top_k: 40,
      explain: true,
    });
    for (const hit of hits) {
      // a turn has all seven terms; a memory, whose turns lend it nothing, keyword, vector and date
      assert.deepEqual(hit.terms.map((x) => x.name).slice(0, 2), ['keyword', 'vector']);
      const sum = hit.terms.reduce((a, x) => a + x.weight * x.value, 0) / hit.divisor;
      assert.ok(
        Math.abs(sum - hit.fused) < 1e-5,
        `${hit.id}: the parts shown add up to ${sum}, the score is ${hit.fused}`,
      );
      const parts = api.result.memories.find((h) => h.id === hit.id)?.score_parts;
      assert.ok(parts, `${hit.id} is among the API's hits`);
      assert.equal(hit.fused, Number(parts?.fused.toFixed(6)), 'the page shows the server’s parts');
      assert.equal(hit.vector === '—', parts?.vector === null);
    }
    assert.ok(
      hits.some((h) => h.keyword !== '—' && h.vector !== '—'),
      'a hit stands in both lists',
    );
    await screenshot(page, shots, 'search');
  });

  await t.test('a person without access sees nothing of another’s conversations in any view', async () => {
    const bob = await browser.page();
    await signIn(bob, base, cast.bob.token);
    await bob.getByText('No conversations you can read yet.').waitFor(WAIT);
    const views = [
      '/console/conversations',
      '/console/conversations/lisbon-trip',
      '/console/conversations/lisbon-trip/memories',
      '/console/conversations/lisbon-trip/summaries',
      '/console/conversations/lisbon-trip/forks',
      '/console/search?q=venue+Lisbon&method=hybrid',
      '/console/search?q=venue&method=keyword&group=lisbon-trip',
    ];
    for (const view of views) {
      await bob.goto(`${base}${view}`);
      await bob.getByTestId('signed-in-as').waitFor(WAIT);
      await until(async () => (await bob.locator('[aria-busy="true"]').count()) === 0, `${view} to load`);
      const text = (await bob.locator('main').textContent()) ?? '';
      // (The id itself is in bob's own address; what must not show is anything the conversation holds.)
      assert.doesNotMatch(text, /river|pastel|Berlin|offsite|alice/i, `${view} shows alice’s conversation: ${text}`);
      assert.equal(await bob.locator('[data-testid="error"]').count(), 0, `${view}: ${text}`);
    }
    assert.deepEqual(bob.errors, []);
    await bob.close();
  });

  await t.test('on a phone-sized screen the conversation reads without errors', async () => {
    const phone = await browser.page({ width: 390, height: 844 });
    await signIn(phone, base, aliceToken);
    await phone.goto(`${base}/console/conversations/lisbon-trip/summaries`);
    await phone.getByTestId('summaries').waitFor(WAIT);
    await screenshot(phone, shots, 'summaries-phone');
    await phone.close();
  });

  await t.test('the lag of a stopped consumer grows on the pipeline page', async () => {
    await page.getByRole('link', { name: 'Pipeline' }).click();
    const lag = page.locator('tr[data-group="memstream-indexer"] [data-testid="lag"]');
    await lag.waitFor(WAIT);
    const shown = async () => Number(await lag.textContent());
    // The indexer embeds in its handler: with its embeddings server holding every request, it
    // stops on the first message and stays stopped; what is written meanwhile piles up behind it
    // (one conversation, so one partition, whose records are handled in order).
    model.hold();
    t.after(() => model.release());
    await writeChat(alice, 'lag', 'alice', ['zero']);
    await until(async () => model.heldEmbeddings() > 0, 'the indexer to wait on its model');
    const answered = model.embeddingCalls.length;
    await until(async () => (await shown()) >= 1, 'the held message counted as lag');
    const before = await shown();
    await writeChat(alice, 'lag', 'alice', ['one', 'two', 'three', 'four', 'five', 'six'], 1);
    // The page reads /metrics every 2 s by itself: no reload, no click.
    await until(async () => (await shown()) >= before + 6, `an indexer lag of ${before + 6} on the page`);
    assert.equal(model.embeddingCalls.length, answered, 'the indexer stayed stopped while its lag grew');
    assert.ok(model.heldEmbeddings() > 0);
    await screenshot(page, shots, 'pipeline');
    model.release();
    await until(async () => (await shown()) === 0, 'the lag back to 0 once the indexer runs again');
  });
});
