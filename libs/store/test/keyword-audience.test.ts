import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendMessages,
  foldKeywordCounts,
  keywordSearch,
  loadMigrations,
  migrate,
  PgStore,
  setMembership,
  type Store,
} from '@memstream/store';
import { freshDatabase } from '../../../test/helpers/infra.js';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';
import { appendBefore0039, foldBefore0039 } from './search-before-0039.js';
import { chatMessage, countsDiffer, deleteSearchRowsWhere, log } from './search-fixtures.js';
import { testShardGroups } from '../../../harness/store-layout.js';

/**
 * Issue 49, item 9: BM25's statistics were counted over every row of a conversation, agent-only
 * ones too, so a person's scores moved with the words an agent kept for itself. Dora's two
 * messages scored the same for a two-word query until an agent wrote 15 memory-channel messages
 * holding one of the words; then one fell to a tenth and the other rose, and a member could probe
 * an agent's working memory one guessed word at a time.
 */
const CHAT = 'dora-chat';
const QUERY = 'quokka marmot';

const doras = [
  { ...chatMessage(CHAT, 'd1', 'The quokka naps under the fig tree'), sender_id: 'dora' },
  { ...chatMessage(CHAT, 'd2', 'Our marmot found the lettuce patch'), sender_id: 'dora' },
  { ...chatMessage(CHAT, 'd3', 'Lunch is at noon tomorrow'), sender_id: 'dora' },
];

/** An agent's message: its working memory (`memory` channel, for `client` only), or for every agent. */
const agentNote = (id: string, content: string, client: string, channel: 'memory' | 'history') => ({
  ...chatMessage(CHAT, id, content),
  sender_id: client,
  role: 'assistant' as const,
  metadata: { ms: { channel, visibility: 'agent', client_id: client } },
  source_api: 'memory-service' as const,
});

const agentNotes = [
  ...Array.from({ length: 15 }, (_, i) =>
    agentNote(`bot-${i}`, `dora mentioned the quokka again (${i})`, 'bot', 'memory'),
  ),
  ...Array.from({ length: 4 }, (_, i) => agentNote(`all-${i}`, `quokka quokka follow-up ${i}`, 'bot', 'history')),
  agentNote('other-0', 'a marmot note of another agent', 'other', 'memory'),
];

const PEOPLE = { kinds: ['message'] as const, audiences: [] as string[] };
/** The callers whose scores are checked: dora through her conversations and through the one she names, and agents. */
const CALLERS = {
  'dora, her conversations': { ...PEOPLE, visibleTo: 'dora' },
  'dora, the conversation named': { ...PEOPLE, conversationId: CHAT },
  'the agent bot': { kinds: ['message'] as const, audiences: ['agents', 'agent:bot'] },
  'the agent bot, the conversation named': {
    kinds: ['message'] as const,
    audiences: ['agents', 'agent:bot'],
    conversationId: CHAT,
  },
  'the agent other': { kinds: ['message'] as const, audiences: ['agents', 'agent:other'] },
};

async function scores(store: Store, filters: Parameters<typeof keywordSearch>[2]): Promise<Record<string, number>> {
  const hits = await keywordSearch(store, QUERY, filters, 50);
  return Object.fromEntries(hits.map((h) => [h.message_ids[0]!, h.score]));
}

/**
 * Each caller's scores from the kept counts, and from a pass over the rows the caller may read (a
 * time bound, which the counts cannot describe, takes that path): both must agree.
 */
async function checkEveryCaller(store: Store, when: string): Promise<void> {
  for (const [who, filters] of Object.entries(CALLERS)) {
    const counted = await scores(store, filters);
    const scanned = await scores(store, { ...filters, from: new Date(0) });
    assert.deepEqual(Object.keys(counted).sort(), Object.keys(scanned).sort(), `${when}, ${who}: the same hits`);
    for (const [id, score] of Object.entries(counted)) {
      assert.ok(
        Math.abs(score - scanned[id]!) < 1e-9,
        `${when}, ${who}: ${id} scores ${score}, ${scanned[id]} over its rows`,
      );
    }
  }
}

for (const state of ['pending', 'folded'] as const) {
  test(`a person's keyword scores are the same whatever agents write for themselves, their rows ${state}`, async () => {
    const store = await migratedPglite();
    try {
      await setMembership(store, CHAT, 'dora', 'owner');
      await appendMessages(
        store,
        doras.map((message) => ({ message })),
      );
      if (state === 'folded') await foldKeywordCounts(store, 1_000, testShardGroups());
      const dora = async () => [await scores(store, CALLERS['dora, her conversations']), await scores(store, PEOPLE)];
      const before = await dora();
      assert.equal(Object.keys(before[0]!).length, 2, 'both of her messages are hits');
      const [d1, d2] = [before[0]!['d1'], before[0]!['d2']];
      assert.ok(d1 !== undefined && Math.abs(d1 - d2!) < 1e-9, `her two messages score alike: ${d1}, ${d2}`);

      await appendMessages(
        store,
        agentNotes.map((message) => ({ message })),
      );
      if (state === 'folded') await foldKeywordCounts(store, 1_000, testShardGroups());
      assert.deepEqual(await dora(), before, `with the agents' rows ${state}`);
      await checkEveryCaller(store, state);
      assert.deepEqual(await countsDiffer(store), []);
      const bot = await scores(store, CALLERS['the agent bot']);
      assert.ok(bot['d1']! < d1!, `the agent's own memory weighs with it (${bot['d1']} against dora's ${d1})`);

      await deleteSearchRowsWhere(store, 'audience IS NOT NULL');
      assert.deepEqual(await countsDiffer(store), [], "the agents' rows counted out of their own audiences");
      assert.deepEqual(await dora(), before, "with the agents' rows deleted");
      await checkEveryCaller(store, `${state}, then deleted`);
    } finally {
      await store.close();
    }
  });
}

/** A store migrated up to 0031, on each backend. */
const beforeMigration: Array<[string, (t: TestContext) => Promise<Store>]> = [
  ['PGlite', async () => migratedPglite({ before: 32 })],
  [
    'native PostgreSQL',
    async (t) => {
      const store = new PgStore({
        connectionString: await freshDatabase(t),
        maxConnections: 4,
        statementTimeoutMs: 60_000,
        log,
      });
      await migrate(
        store,
        log,
        (await loadMigrations()).filter((m) => m.version < 32),
      );
      return store;
    },
  ],
];

for (const [name, open] of beforeMigration) {
  test(`${name}: migration 0032 moves the counts of agent-only rows, folded and pending, out of everyone's`, async (t) => {
    const store = await open(t);
    try {
      // the writers before 0039 write group_key and name its keys (0035-0038): those go ahead of the
      // one under test; today's search writers need 0039, which needs 0032
      await migrate(
        store,
        log,
        (await loadMigrations()).filter((m) => m.version >= 35 && m.version <= 38),
      );
      await store.query(
        `INSERT INTO conversation_memberships (group_id, user_id, access_level) VALUES ($1, 'dora', 'owner')`,
        [CHAT],
      );
      await appendBefore0039(store, [...doras, ...agentNotes.slice(0, 10)]);
      await foldBefore0039(store);
      await appendBefore0039(store, agentNotes.slice(10));
      await migrate(store, log);
      assert.deepEqual(await countsDiffer(store), []);
      await checkEveryCaller(store, 'migrated');
      await foldKeywordCounts(store, 1_000);
      assert.deepEqual(await countsDiffer(store), [], 'after the fold');
      await checkEveryCaller(store, 'migrated, folded');
    } finally {
      await store.close();
    }
  });
}

test("an agent's memory under a client id of 1,500 bytes is folded into its own audience's counts", async () => {
  const store = await migratedPglite();
  try {
    // random code points, so that no index entry compresses; a conversation id at the id rule's limit
    let s = 11;
    const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const conversation = Array.from({ length: 255 }, () =>
      String.fromCodePoint(0x20000 + Math.floor(next() * 40_000)),
    ).join('');
    const client = Array.from({ length: 375 }, () => String.fromCodePoint(0x20000 + Math.floor(next() * 40_000))).join(
      '',
    );
    const word = Array.from({ length: 990 }, () => 'bcdfghjklmnpqrstvwxz'[Math.floor(next() * 20)]).join('');
    await appendMessages(store, [
      { message: { ...chatMessage(conversation, 'n1', 'the quokka naps'), sender_id: 'dora' } },
      { message: { ...agentNote('n2', `quokka ${word}`, client, 'memory'), conversation_id: conversation } },
    ]);
    assert.equal(await foldKeywordCounts(store, 100, testShardGroups()), 2, 'the fold takes both');
    assert.deepEqual(await countsDiffer(store), []);
    const agent = {
      kinds: ['message'] as const,
      audiences: ['agents', `agent:${client}`],
      conversationId: conversation,
    };
    const counted = await scores(store, agent);
    assert.equal(Object.keys(counted).length, 2, 'the agent finds its note');
    assert.deepEqual(counted, await scores(store, { ...agent, from: new Date(0) }), 'scored as over its rows');
  } finally {
    await store.close();
  }
});
