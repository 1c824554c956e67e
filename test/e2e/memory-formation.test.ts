import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { freshDatabase, infra, kafkaTopicPrefix, uniqueName, waitFor } from '../helpers/infra.js';
import { embeddedMemstream } from '../helpers/embedded.js';
import { startModelServer, type ModelServer } from '../../harness/model-server.js';
import { startApi, startServices } from '../helpers/distributed.js';
import { checkBoundaries, checkSearchAndDelete, episodicOf, FORMATION_ENV, post } from './memory-formation-contract.js';

test('embedded mode: every boundary rule closes an episode; offline extraction; search and delete', async (t: TestContext) => {
  const base = await embeddedMemstream(t, FORMATION_ENV);
  await checkBoundaries(base, base, uniqueName('ep'));
  await checkSearchAndDelete(base, base, uniqueName('del'));
});

test('embedded mode: an open episode closes when its conversation goes idle', async (t: TestContext) => {
  const base = await embeddedMemstream(t, {
    ...FORMATION_ENV,
    EPISODE_IDLE_CLOSE_MS: '300',
    EMBEDDING_PROVIDER: 'hash',
  });
  const group = uniqueName('idle');
  await post(base, group, 'i0', 'Anyone up for climbing on Saturday?', Date.UTC(2025, 0, 4, 9));
  const memories = await waitFor(
    'the idle episode extracted',
    async () => {
      const m = await episodicOf(base, group);
      return m.length > 0 ? m : undefined;
    },
    30_000,
  );
  assert.deepEqual(memories.find((m) => m.user_id === null)!.message_ids, ['i0']);
});

/** A model that extracts: a JSON reply naming the episode's first and last message. */
function extractionReply(messages: Array<{ role: string; content: string }>): string {
  const system = messages[0]!.content;
  if (system.includes('segment a conversation')) {
    // Topic judgement: a topic ends after the message that says "that settles it".
    const lines = messages[1]!.content.split('\n').filter((l) => /^\d+\. /.test(l));
    const end = lines.findIndex((l) => l.includes('that settles it'));
    return JSON.stringify(end >= 0 && end < lines.length - 1 ? { ended: true, last: end + 1 } : { ended: false });
  }
  const transcript = messages[1]!.content;
  const ids = [...new Set([...transcript.matchAll(/\[([a-z]+)\]: /g)].map((m) => m[1]!))];
  const first = /^1\. .*?: (.*)$/m.exec(transcript)?.[1] ?? '';
  return JSON.stringify({
    title: 'Model title',
    episode: `MODEL NARRATIVE starting with: ${first}`,
    participants: ids.map((id) => ({ user_id: id, memory: `MODEL MEMORY of ${id}` })),
  });
}

test('distributed mode: extraction with a model survives 429s, invalid replies and timeouts; topic ends; search and delete', async (t: TestContext) => {
  const model: ModelServer = await startModelServer();
  t.after(() => model.close());
  model.replyWith(extractionReply);
  const shared = {
    ...FORMATION_ENV,
    KAFKA_BROKERS: infra().kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: kafkaTopicPrefix('formation'),
    DATABASE_URL: await freshDatabase(t),
    REDIS_URL: infra().redisUrl,
    CONVERTER_GROUP_ID: uniqueName('converter'),
    EXTRACTOR_GROUP_ID: uniqueName('extractor'),
    INDEXER_GROUP_ID: uniqueName('indexer'),
  };
  const modelEnv = {
    OPENAI_BASE_URL: model.baseUrl,
    EXTRACTION_MODEL: 'test-extractor',
    EXTRACTION_TIMEOUT_MS: '500',
    EXTRACTION_MAX_RETRIES: '1',
    EPISODE_TOPIC_MIN_MESSAGES: '3',
  };
  // The gateway and the read API behind the edge: a deletion or a flush goes to the gateway like every write.
  const [, [api]] = (await Promise.all([
    startServices(t, shared, ['converter', 'extractor', 'indexer'], [{}, modelEnv, {}]),
    startApi(t, shared),
  ])) as [unknown, [string]];

  const at = (i: number) => Date.UTC(2025, 5, 1, 10, i);
  const narrativeOf = async (group: string) =>
    waitFor(
      `a model narrative for ${group}`,
      async () =>
        (await episodicOf(api, group)).find((m) => m.user_id === null && m.extractor === 'model:test-extractor'),
      60_000,
    );

  // 429s past the client's retry: the episode is parked, then extracted on a later try.
  const isExtraction = (messages: Array<{ content: string }>) =>
    !messages[0]!.content.includes('segment a conversation');
  model.failNext(4, 429, isExtraction);
  const throttled = uniqueName('throttled');
  for (let i = 0; i < 4; i++) await post(api, throttled, `r${i}`, `Throttled line ${i}`, at(i), i % 2 ? 'bob' : 'ann');
  const n1 = await narrativeOf(throttled);
  assert.match(n1.content, /^MODEL NARRATIVE starting with: Throttled line 0/);
  assert.deepEqual(n1.message_ids, ['r0', 'r1', 'r2', 'r3']);
  const people = (await episodicOf(api, throttled)).filter((m) => m.user_id !== null);
  assert.deepEqual(people.map((m) => m.content).sort(), ['MODEL MEMORY of ann', 'MODEL MEMORY of bob']);
  assert.equal(model.failed.count, 4, 'every induced 429 was served to an extraction call');

  // An invalid reply is asked for again with the problem stated.
  let bad = 2;
  model.replyWith((messages) =>
    isExtraction(messages) && bad-- > 0 ? 'Sure! Here are the memories.' : extractionReply(messages),
  );
  const invalid = uniqueName('invalid');
  const callsBefore = model.calls.length;
  for (let i = 0; i < 4; i++) await post(api, invalid, `v${i}`, `Invalid-reply line ${i}`, at(i));
  await narrativeOf(invalid);
  const repairs = model.calls
    .slice(callsBefore)
    .filter((c) => c.messages.some((m) => m.content.startsWith('That reply was not usable: it is not valid JSON')));
  assert.ok(repairs.length >= 1, 'the model was told what was wrong');
  model.replyWith(extractionReply);

  // Timeouts: calls hang past EXTRACTION_TIMEOUT_MS; once the model answers again, the episode is extracted.
  model.hold();
  const slow = uniqueName('slow');
  for (let i = 0; i < 4; i++) await post(api, slow, `w${i}`, `Slow line ${i}`, at(i));
  const slowTries = () =>
    model.arrived.filter((m) => isExtraction(m) && m.some((x) => x.content.includes('Slow line'))).length;
  await waitFor('a second try after a timed-out call', async () => slowTries() >= 2, 60_000);
  assert.equal((await episodicOf(api, slow)).length, 0, 'nothing extracted while the model hangs');
  model.release();
  const n3 = await narrativeOf(slow);
  assert.deepEqual(n3.message_ids, ['w0', 'w1', 'w2', 'w3']);

  // The model ends a topic: the episode closes after the message that settles it.
  const topic = uniqueName('topic');
  await post(api, topic, 'p0', 'Where should the team dinner be?', at(0));
  await post(api, topic, 'p1', 'The Thai place, that settles it.', at(1), 'bob');
  await post(api, topic, 'p2', 'Unrelated: has anyone seen my charger?', at(2));
  const n4 = await waitFor(
    'the topic episode',
    async () => (await episodicOf(api, topic)).find((m) => m.user_id === null),
    60_000,
  );
  assert.deepEqual(n4.message_ids, ['p0', 'p1']);

  await checkSearchAndDelete(api, api, uniqueName('del'));
});
