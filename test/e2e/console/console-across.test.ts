import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS } from '@memstream/schemas';
import { embeddedMemstream } from '../../helpers/embedded.js';
import { freshDatabase, infra, kafkaTopicPrefix } from '../../helpers/infra.js';
import { TEST_JWT_SECRET } from '../../../harness/credentials.js';
import { screenshot } from '../../../harness/browser.js';
import {
  consoleBrowser,
  conversationsInEveryFamily,
  people,
  sharedConversation,
  writeChat,
} from './console-fixture.js';
import { signIn, until, WAIT, type Tab } from './console-page.js';

/**
 * The console across families, in a real Chromium against the embedded server on Kafka (so a
 * record can be put on an input topic the way a direct producer would, and dead-lettered): the
 * list of every family's conversations filtered, an episode followed to its messages and back,
 * and a poison record's reason shown to an admin and withheld from a person.
 */
const POISON = '{not json: console poison';

/** The rows of the conversation list once it has loaded: their ids and families. */
async function listed(page: Tab): Promise<Array<[string, string]>> {
  await until(async () => (await page.locator('[aria-busy="true"]').count()) === 0, 'the list to load');
  return page
    .locator('tr[data-conversation-id]')
    .evaluateAll(
      (rows) => rows.map((r) => [r.getAttribute('data-conversation-id'), r.getAttribute('data-family')]),
      undefined,
    ) as Promise<Array<[string, string]>>;
}

/**
 * Waits until the list shows exactly `expected`. The page keeps the previous list on screen while
 * a new filter loads, so a count alone can be met by the list of the filter before.
 */
async function untilListed(page: Tab, expected: Array<[string, string]>, what: string): Promise<void> {
  let seen: Array<[string, string]> = [];
  try {
    await until(async () => isDeepStrictEqual((seen = await listed(page)), expected), what);
  } catch (error) {
    assert.deepEqual(seen, expected, `the list never became ${what}`);
    throw error;
  }
}

test('the console across families: one list of every family filtered, episodes to messages and back, dead-letter records for admins only', async (t: TestContext) => {
  const prefix = kafkaTopicPrefix('console');
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_ADMIN_USERS: 'ada',
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_TOPIC_PARTITIONS: '2',
    REDIS_URL: infra().redisUrl,
    DATABASE_URL: await freshDatabase(t),
  });
  const { browser, shots } = await consoleBrowser(t);
  const cast = await people(base, ['alice', 'bob', 'ada']);
  const [alice, ada] = [cast.alice.client, cast.ada.client];

  await conversationsInEveryFamily(alice, 'alice', 'alice-lisbon', [
    'We should plan the Lisbon offsite for May.',
    'The venue by the river fits twelve people.',
    'Flights from Berlin are cheapest on Tuesdays.',
    'I booked the venue for the second week.',
  ]);
  await alice.evermemos.flush('alice-lisbon');
  const shared = await sharedConversation(cast.bob.client, 'alice', 'Budget review with Bob');
  await writeChat(cast.bob.client, 'bob-private-plans', 'bob', ['Nobody else should read this.']);

  await t.test('the list holds every family alice may read, and its filters narrow it', async () => {
    const page = await browser.page();
    await signIn(page, base, cast.alice.token);
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByTestId('conversations').waitFor(WAIT);
    const all = await listed(page);
    assert.deepEqual(all.map(([, family]) => family).sort(), ['ark', 'evermemos', 'kaos', 'memory-service']);
    assert.ok(!all.some(([id]) => id === 'bob-private-plans'), 'nothing of bob’s own');
    await screenshot(page, shots, 'conversations-across-families');

    const filters = page.getByRole('form', { name: 'Filter conversations' });
    await filters.getByLabel('Family').selectOption('kaos');
    await until(async () => (await listed(page)).every(([, f]) => f === 'kaos'), 'only KAOS');
    assert.equal((await listed(page)).length, 1);
    assert.match((await page.locator('tr[data-family="kaos"]').textContent()) ?? '', /alice-kaos/);

    await filters.getByLabel('Family').selectOption('');
    await filters.getByLabel('Person').fill('bob');
    await untilListed(page, [[shared, 'memory-service']], 'the one conversation with bob');

    await filters.getByLabel('Person').fill('');
    await filters.getByLabel('Group or session').fill('LISBON');
    await untilListed(page, [['alice-lisbon', 'evermemos']], 'the one conversation named lisbon');

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await filters.getByLabel('Active from').fill(tomorrow);
    await page.getByText('No conversation you can read matches.').waitFor(WAIT);
    assert.match(new URL(page.url()).search, /group=LISBON.*from=/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  await t.test('an episode leads to its messages, and a message back to its episode', async () => {
    await until(
      async () =>
        (await alice.evermemos.list({ group_id: 'alice-lisbon', memory_type: 'episodic_memory' })).result.memories
          .length > 0,
      'the episode’s memories',
      60_000,
    );
    const page = await browser.page();
    await signIn(page, base, cast.alice.token);
    await page.goto(`${base}/console/conversations/alice-lisbon/memories`);
    const episode = page.locator('li[data-episode]').first();
    await episode.waitFor(WAIT);
    const number = await episode.getAttribute('data-episode');
    const count = Number(
      ((await episode.getByTestId('episode-sources').textContent()) ?? '').match(/(\d+) source/)![1],
    );
    await episode.getByTestId('episode-sources').click();
    await page.locator('tr.marked').first().waitFor(WAIT);
    assert.equal(await page.locator('tr.marked').count(), count);
    await screenshot(page, shots, 'episode-messages');

    const back = page.locator('tr.marked').last().getByTestId('message-episode');
    assert.match((await back.textContent()) ?? '', new RegExp(`^Episode ${number} holding message \\d+$`));
    await back.click();
    const current = page.locator('li[data-episode][aria-current="true"]');
    await current.waitFor(WAIT);
    assert.equal(await current.getAttribute('data-episode'), number);
    assert.match(new URL(page.url()).search, /episode=alice-lisbon-/);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  await t.test(
    'a poison record’s reason is shown to an admin, and neither it nor its content to a person',
    async () => {
      const producer = new Kafka({ brokers: infra().kafkaBrokers, logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
      t.after(() => producer.disconnect());
      await producer.send({
        topic: `${prefix}${TOPICS.groupChatInput.name}`,
        messages: [{ key: 'poison', value: POISON }],
      });
      await until(
        async () =>
          (await ada.admin.deadLetters({ topic: TOPICS.groupChatInput.dlq })).data[0]!.records.some(
            (r) => r.value === POISON,
          ),
        'the poison record on the dead-letter topic',
        60_000,
      );

      const admin = await browser.page();
      await signIn(admin, base, cast.ada.token);
      await admin.getByRole('link', { name: 'Pipeline', exact: true }).click();
      const table = admin.locator(`table[data-dlq-topic="${TOPICS.groupChatInput.dlq}"]`);
      await table.waitFor(WAIT);
      const row = table.getByTestId('dead-letter').first();
      const reason = ((await row.getByTestId('dead-letter-reason').textContent()) ?? '').trim();
      assert.ok(reason.length > 1, `a reason: ${reason}`);
      assert.match(
        (await row.textContent()) ?? '',
        new RegExp(`${TOPICS.groupChatInput.name}[\\s\\S]*memstream-converter`),
      );
      await row.locator('summary').click();
      await row.getByText(POISON).waitFor(WAIT);
      await screenshot(admin, shots, 'pipeline-dead-letters');
      assert.deepEqual(admin.errors, []);
      await admin.close();

      const person = await browser.page();
      await signIn(person, base, cast.alice.token);
      await person.getByRole('link', { name: 'Pipeline', exact: true }).click();
      await person.getByTestId('dead-letter-records-withheld').waitFor(WAIT);
      await person.getByTestId('consumer-groups').waitFor(WAIT);
      assert.equal(await person.getByTestId('dead-letter').count(), 0);
      const text = (await person.locator('main').textContent()) ?? '';
      assert.ok(!text.includes(POISON), 'no record content');
      assert.ok(!text.includes(reason), `no reason: ${reason}`);
      assert.deepEqual(person.errors, []);
      await person.close();
    },
  );
});
