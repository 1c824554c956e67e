import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { BusRecord } from '@memstream/bus';
import { uniqueName, waitFor } from '../helpers/infra.js';
import { carries, where } from '../helpers/read-from-zero.js';
import { residueOf, tableCount } from '../helpers/residue.js';
import { bearer, userToken } from '../../harness/credentials.js';
import { ADMIN_AUTH_ENV, KEYS } from './admin-contract.js';

type Headers = Record<string, string>;

/** The settings an erasure test runs with: people and roles, short episodes, early summaries, a quick sweep. */
export const ERASURE_ENV = {
  ...ADMIN_AUTH_ENV,
  EMBEDDING_PROVIDER: 'hash',
  EPISODE_MAX_MESSAGES: '4',
  MEMORY_SUMMARIZE_AFTER_SEQ: '3',
  SUMMARY_MIN_INTERVAL_MS: '0',
  ERASURE_LEASE_MS: '2000',
  ERASURE_SWEEP_INTERVAL_MS: '200',
};

/** A word the stemmer leaves whole (it ends in a consonant after a digit run), unique to one test. */
export function markerWord(who: string): string {
  return `${who}${randomBytes(5).toString('hex')}qz`;
}

export interface Reply {
  readonly status: number;
  readonly body: any;
}

export async function http(
  base: string,
  method: string,
  path: string,
  headers: Headers,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

function ok(reply: Reply, status: number, what: string): any {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** memory-service's error body: {error, code, details}. */
function assertMemoryServiceError(reply: Reply, status: number, code: string, what: string): void {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body?.code, code, what);
  assert.equal(typeof reply.body?.error, 'string', what);
}

/** Where the test looks behind the API: the database, Redis where the mode has one, and the transport. */
export interface Backstage {
  readonly databaseUrl: string;
  readonly redisUrl?: string | undefined;
  /** Every record of every topic and dead-letter topic, as a reader from offset 0 finds them (Kafka, or the journal). */
  readonly readTransport: () => Promise<BusRecord[]>;
}

async function rowsHolding(db: pg.Client, table: string, column: string, word: string, extra = ''): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${table} WHERE position(lower($1) in lower(${column}::text)) > 0 ${extra}`,
    [word],
  );
  return Number(rows[0]!.n);
}

/** Every key of the Redis whose name or value (any type) holds one of the words. */
export async function redisResidue(url: string, words: readonly string[]): Promise<string[]> {
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        const value =
          type === 'string'
            ? await redis.get(key)
            : type === 'stream'
              ? await redis.xrange(key, '-', '+')
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'hash'
                  ? await redis.hgetall(key)
                  : type === 'list'
                    ? await redis.lrange(key, 0, -1)
                    : type === 'zset'
                      ? await redis.zrange(key, 0, -1)
                      : null;
        const text = `${key} ${JSON.stringify(value)}`.toLowerCase();
        if (words.some((w) => text.includes(w.toLowerCase()))) found.push(key);
      }
    } while (cursor !== '0');
    return found;
  } finally {
    redis.disconnect();
  }
}

/**
 * Pia and Quin write in every family, each with a marker word: EverMemOS (a group a chat backend
 * relays both into, and each one's private chat), memory-service (a conversation of each, Quin's
 * shared with Pia, where both write; a response Pia records in hers), KAOS (a session of each),
 * ARK (a session where both speak). Once memories, summaries and vectors are made of Pia's words,
 * an admin erases her. While the job is held inside its third step (the test holds the lock of a
 * row only that step removes), Pia writes again: a new conversation and a message in the group.
 * The receipt completes with counts in every family; Pia's words (first and late) are in no row of
 * any table, no Redis key or value, no search hit, memory or summary; Quin's messages are exactly
 * as they were and still found. A person erases themself through /v1/me, and reads only their own
 * receipt. Every erasure is in the audit log, without content.
 */
export async function checkErasure(base: string, backstage: Backstage): Promise<void> {
  const prefix = uniqueName('er').replace('_', '');
  const pia = `${prefix}pia`;
  const quin = `${prefix}quin`;
  const mp = markerWord('pia');
  const mq = markerWord('quin');
  const late = markerWord('late');
  const as = {
    pia: bearer(await userToken(pia)),
    quin: bearer(await userToken(quin)),
    admin: bearer(await userToken('alice', { claims: { roles: ['admin'] } })),
    auditor: { 'x-api-key': KEYS.audit },
    agent: { 'x-api-key': KEYS.assistant },
  };
  const db = new pg.Client({ connectionString: backstage.databaseUrl });
  await db.connect();
  try {
    // EverMemOS: the backend relays both into one group; each writes their own private chat.
    const group = `${prefix}-group`;
    const evermemos = (who: Headers, id: string, sender: string, content: string, groupId?: string) =>
      http(base, 'POST', '/api/v1/memories', who, {
        ...(groupId === undefined ? {} : { group_id: groupId }),
        message_id: id,
        create_time: new Date(Date.UTC(2025, 2, 1, 9, Number(id.replace(/\D/g, '')) || 0)).toISOString(),
        sender,
        content,
      });
    for (let i = 0; i < 6; i++) {
      const [sender, word] = i % 2 === 0 ? [pia, mp] : [quin, mq];
      ok(await evermemos(as.agent, `g${i}`, sender, `${word} in the group, line ${i}`, group), 200, 'group message');
    }
    // The default conversation metadata (no group's) lists both among its participants.
    const defaultMeta = {
      scene: 'group_chat',
      scene_desc: 'the team',
      name: 'Team default',
      description: 'what groups without metadata use',
      created_at: '2025-03-01T08:00:00Z',
      default_timezone: 'UTC',
      user_details: { [pia]: { full_name: 'P.', role: 'user' }, [quin]: { full_name: 'Q.', role: 'user' } },
    };
    ok(
      await http(base, 'POST', '/api/v1/memories/conversation-meta', as.agent, defaultMeta),
      200,
      'the default config',
    );
    for (let i = 0; i < 4; i++) {
      ok(await evermemos(as.pia, `p${i}`, pia, `${mp} privately, note ${i}`), 200, "pia's private chat");
      ok(await evermemos(as.quin, `q${i}`, quin, `${mq} privately, note ${i}`), 200, "quin's private chat");
    }

    // memory-service: a conversation of each; Quin shares his with Pia and both write in it.
    const conversation = async (who: Headers, title: string) =>
      ok(await http(base, 'POST', '/v1/conversations', who, { title }), 201, 'conversation').id as string;
    const say = async (who: Headers, id: string, text: string) =>
      ok(
        await http(base, 'POST', `/v1/conversations/${id}/messages`, who, { content: [{ type: 'text', text }] }),
        201,
        'message',
      );
    const piaConversation = await conversation(as.pia, 'plans');
    for (let i = 0; i < 4; i++) await say(as.pia, piaConversation, `${mp} plan number ${i}`);
    ok(
      await http(base, 'POST', `/v1/conversations/${piaConversation}/response`, as.pia, {
        tokens: [`${mp} streaming `, 'answer'],
      }),
      200,
      'a response recorded',
    );
    const quinConversation = await conversation(as.quin, 'shared');
    ok(
      await http(base, 'POST', `/v1/conversations/${quinConversation}/memberships`, as.quin, {
        userId: pia,
        accessLevel: 'writer',
      }),
      201,
      'shared with pia',
    );
    for (let i = 0; i < 3; i++) {
      await say(as.quin, quinConversation, `${mq} shared thought ${i}`);
      await say(as.pia, quinConversation, `${mp} shared reply ${i}`);
    }
    // a membership Pia had and lost: its removal is kept on record, under her id
    const formerConversation = await conversation(as.quin, 'former');
    ok(
      await http(base, 'POST', `/v1/conversations/${formerConversation}/memberships`, as.quin, {
        userId: pia,
        accessLevel: 'reader',
      }),
      201,
      'shared with pia for a while',
    );
    const removed = await http(base, 'DELETE', `/v1/conversations/${formerConversation}/memberships/${pia}`, as.quin);
    assert.ok(removed.status === 204 || removed.status === 200, `pia's membership removed: ${removed.status}`);

    // KAOS: a session of each person, with their words in it.
    for (const [who, word] of [
      [as.pia, mp],
      [as.quin, mq],
    ] as const) {
      const session = ok(await http(base, 'POST', '/memory/sessions', who, { app_name: 'app' }), 201, 'kaos session')
        .session_id as string;
      for (let i = 0; i < 3; i++)
        ok(
          await http(base, 'POST', `/memory/sessions/${session}/events`, who, {
            event_type: 'user_message',
            content: `${word} kaos turn ${i}`,
          }),
          201,
          'kaos event',
        );
    }

    // ARK: one session where both speak (by name), relayed by the agent.
    const arkSession = `${prefix}-ark`;
    ok(
      await http(base, 'POST', '/messages', as.agent, {
        session_id: arkSession,
        messages: [
          { role: 'user', name: pia, content: `${mp} asks ark` },
          { role: 'user', name: quin, content: `${mq} asks ark` },
          { role: 'assistant', content: 'noted' },
        ],
      }),
      200,
      'ark batch',
    );

    // Memories, summaries and vectors made of Pia's words, before she is erased.
    await waitFor(
      "memories, rolling summaries and vectors of pia's words",
      async () =>
        (await rowsHolding(db, 'episodic_memories', 'content', mp)) > 0 &&
        (await rowsHolding(db, 'memory', 'memory_text', mp)) > 0 &&
        (await rowsHolding(
          db,
          'search_items',
          'content',
          mp,
          'AND EXISTS (SELECT 1 FROM search_vectors v WHERE v.group_key = search_items.group_key AND v.kind = search_items.kind AND v.item_id = search_items.item_id)',
        )) > 0 &&
        (await rowsHolding(db, 'search_items', 'content', mq, "AND kind = 'episodic_memory'")) > 0,
      120_000,
    );
    if (backstage.redisUrl)
      assert.notDeepEqual(await redisResidue(backstage.redisUrl, [mp]), [], "pia's response is in Redis");
    const quinsBefore = await quinsMessages(db, quin);

    // Who may erase: not a person, not an auditor; the request is checked.
    const request = { userId: pia, justification: 'GDPR article 17 request #1' };
    assertMemoryServiceError(
      await http(base, 'POST', '/v1/admin/erasures', as.quin, request),
      403,
      'forbidden',
      'a person',
    );
    assertMemoryServiceError(
      await http(base, 'POST', '/v1/admin/erasures', as.auditor, request),
      403,
      'forbidden',
      'an auditor',
    );
    assertMemoryServiceError(
      await http(base, 'POST', '/v1/admin/erasures', as.admin, { userId: pia }),
      400,
      'bad_request',
      'no justification',
    );

    // The job is held inside its third step while Pia writes again.
    const holder = new pg.Client({ connectionString: backstage.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    // her membership of Quin's conversation: the only row the first two steps leave and the third removes
    const held = await holder.query(
      'SELECT 1 FROM conversation_memberships WHERE group_id = $1 AND user_id = $2 FOR UPDATE',
      [quinConversation, pia],
    );
    assert.equal(held.rowCount, 1);
    const accepted = ok(await http(base, 'POST', '/v1/admin/erasures', as.admin, request), 202, 'erasure accepted');
    assert.deepEqual(Object.keys(accepted).sort(), ['id', 'status']);
    const receipt = async (who: Headers = as.auditor, path = `/v1/admin/erasures/${accepted.id}`) =>
      http(base, 'GET', path, who);
    let seen: unknown;
    await waitFor(
      'the job at its third step',
      async () => {
        seen = (await receipt()).body;
        return (seen as { step?: string }).step === 'keyed-records';
      },
      60_000,
    ).catch((err) => assert.fail(`${err}; the receipt: ${JSON.stringify(seen)}`));
    const lateConversation = await conversation(as.pia, 'after the request');
    await say(as.pia, lateConversation, `${late} written after the erasure was accepted`);
    ok(await evermemos(as.agent, 'g9', pia, `${late} relayed after the erasure was accepted`, group), 200, 'late');
    assert.equal((await receipt()).body.status, 'running', 'the late writes landed before the job ended');
    await holder.query('COMMIT');
    await holder.end();

    const done = await waitFor(
      'the receipt completed',
      async () => {
        const r = (await receipt()).body;
        return r.status === 'completed' ? r : undefined;
      },
      60_000,
    );
    // Nowhere: every table (each row as text), every Redis key and value.
    const tables = await tableCount(db);
    assert.ok(tables > 20, `the scan covers every table (${tables})`);
    // at once: what the receipt calls completed is gone when it says so
    assert.deepEqual(await residueOf(db, [mp, late]), [], "pia's words in no table, the bus journal's included");
    // nor her id, but in the job that erased her, the audit log that says so, and the journal of the
    // erasure topic, whose event names her (ids only)
    assert.deepEqual(
      await residueOf(db, [pia], ['erasure_jobs', 'audit_log', 'bus_journal']),
      [],
      "pia's id in no table",
    );
    if (backstage.redisUrl) assert.deepEqual(await redisResidue(backstage.redisUrl, [mp, late]), []);
    const defaults = ok(await http(base, 'GET', '/api/v1/memories/conversation-meta', as.agent), 200, 'the default');
    assert.deepEqual(Object.keys(defaults.result.user_details), [quin], "quin's entry in the default config stays");
    // nor on any topic, for a reader that starts every partition at offset 0
    const transport = await backstage.readTransport();
    const onTopics = transport.filter((r) => carries(mp)(r) || carries(late)(r)).map(where);
    assert.deepEqual(onTopics, [], "pia's words on no topic");

    assert.equal(done.userId, pia);
    assert.ok(done.passes >= 2, 'a second pass took the late writes');
    for (const stamp of ['requestedAt', 'startedAt', 'completedAt']) assert.ok(Date.parse(done[stamp]) > 0, stamp);
    const counted = (family: string, kind: string) => done.counts[family].postgres[kind] ?? 0;
    assert.equal(counted('evermemos', 'messages'), 4 + 1 + 3, "pia's private chat whole, and her group messages");
    assert.ok(counted('evermemos', 'episodicMemories') > 0);
    assert.equal(counted('memory-service', 'conversationGroups'), 2, 'her conversation and the late one');
    assert.equal(counted('memory-service', 'messages'), 4 + 1 + 3);
    assert.ok(counted('memory-service', 'memberships') >= 1, 'her membership of quin’s conversation');
    assert.equal(counted('kaos', 'kaosSessions'), 1);
    assert.equal(counted('kaos', 'kaosEvents'), 3);
    assert.equal(counted('ark', 'messages'), 1);
    assert.ok(counted('memory-agent', 'summaries') > 0);
    assert.ok((done.counts['memory-service'].redis.responseStreams ?? 0) >= 2);
    const removedFromTopics = (family: string) =>
      Object.values<number>(done.counts[family].kafka).reduce((a, b) => a + b, 0);
    assert.ok(removedFromTopics('evermemos') > 0, 'the group chat topic was cut');
    assert.ok(removedFromTopics('memory-agent') > 0, 'the internal topics were cut');
    assertMemoryServiceError(await receipt(as.pia), 403, 'forbidden', 'a person reads no admin receipt');

    // No search hit, memory or summary through the APIs; Quin's words unchanged and still found.
    for (const word of [mp, late]) {
      const hits = ok(
        await http(base, 'POST', '/v1/admin/search/messages', as.admin, { query: word }),
        200,
        'admin search',
      );
      // (vector search answers the nearest messages of others: none may hold the word)
      assert.ok(!JSON.stringify(hits).toLowerCase().includes(word.toLowerCase()), `no search hit for ${word}`);
    }
    const groupSearch = ok(
      await http(base, 'GET', `/api/v1/memories/search?query=${mp}&group_id=${group}`, as.agent),
      200,
      'group search',
    );
    assert.ok(!JSON.stringify(groupSearch).includes(mp));
    const context = ok(
      await http(base, 'GET', `/api/v1/context?conversation_id=${group}&format=json`, as.agent),
      200,
      'memory agent context',
    );
    assert.ok(!JSON.stringify(context).includes(mp));
    assert.deepEqual(await quinsMessages(db, quin), quinsBefore, "quin's messages are exactly as they were");
    await waitFor(
      "quin's words still found by his search",
      async () => {
        const found = await http(base, 'POST', '/v1/user/search/messages', as.quin, { query: mq });
        return found.status === 200 && JSON.stringify(found.body).includes(mq);
      },
      30_000,
    );
    const quinGroup = await http(base, 'GET', `/api/v1/memories/search?query=${mq}&group_id=${group}`, as.agent);
    assert.ok(JSON.stringify(quinGroup.body).includes(mq), 'quin found in the group');

    await checkSelfErasure(base, as);
    await checkErasureAudit(base, as, { pia, justification: request.justification, words: [mp, mq, late] });
  } finally {
    await db.end();
  }
}

async function quinsMessages(db: pg.Client, quin: string): Promise<unknown[]> {
  const { rows } = await db.query(
    `SELECT conversation_id, message_id, seq, content, metadata FROM messages WHERE sender_id = $1
     ORDER BY conversation_id, seq`,
    [quin],
  );
  assert.ok(rows.length >= 6 + 4 + 3 + 1);
  return rows;
}

/** /v1/me: a person erases themself and reads their own receipt; nobody else's; an agent has no self. */
async function checkSelfErasure(base: string, as: Record<'quin' | 'agent', Headers>): Promise<void> {
  const ren = uniqueName('ren');
  const renAuth = bearer(await userToken(ren));
  const word = markerWord('ren');
  const id = ok(await http(base, 'POST', '/v1/conversations', renAuth, { title: 'mine' }), 201, 'ren').id as string;
  ok(
    await http(base, 'POST', `/v1/conversations/${id}/messages`, renAuth, { content: [{ type: 'text', text: word }] }),
    201,
    'ren writes',
  );
  assertMemoryServiceError(
    await http(base, 'POST', '/v1/me/erasure', as.agent, {}),
    403,
    'forbidden',
    'an agent has no self',
  );
  // a role's name is also the sender of turns that name nobody: not a self-service
  const roleNamed = bearer(await userToken('user'));
  assertMemoryServiceError(
    await http(base, 'POST', '/v1/me/erasure', roleNamed, {}),
    403,
    'forbidden',
    'a person named user',
  );
  const mine = ok(
    await http(base, 'POST', '/v1/me/erasure', renAuth, { justification: 'leaving' }),
    202,
    'self erasure',
  );
  const done = await waitFor(
    'the self erasure completed',
    async () => {
      const r = await http(base, 'GET', `/v1/me/erasures/${mine.id}`, renAuth);
      return r.status === 200 && r.body.status === 'completed' ? r.body : undefined;
    },
    60_000,
  );
  assert.equal(done.self, true);
  assert.equal(done.counts['memory-service'].postgres.messages, 1);
  assertMemoryServiceError(
    await http(base, 'GET', `/v1/me/erasures/${mine.id}`, as.quin),
    404,
    'not_found',
    "another's receipt",
  );
  assertMemoryServiceError(
    await http(base, 'GET', '/v1/me/erasures/not-a-uuid', renAuth),
    400,
    'bad_request',
    'a bad id',
  );
  assert.equal((await http(base, 'GET', `/v1/conversations/${id}`, renAuth)).status, 404);
}

/** The audit log holds who asked, for whom, why and how much, and never a word of content. */
async function checkErasureAudit(
  base: string,
  as: Record<'auditor', Headers>,
  o: { pia: string; justification: string; words: readonly string[] },
): Promise<void> {
  const page = ok(await http(base, 'GET', '/v1/admin/audit?limit=1000', as.auditor), 200, 'audit log');
  const entries = page.data as Array<Record<string, any>>;
  const asked = entries.find((e) => e.action === 'erasePerson' && e.status === 202);
  assert.ok(asked, 'the request is audited');
  assert.equal(asked.target, o.pia);
  assert.equal(asked.justification, o.justification);
  const completed = entries.find((e) => e.action === 'erasureCompleted' && e.target === o.pia);
  assert.ok(completed, 'the completion is audited');
  assert.ok(completed.counts['evermemos.postgres.messages'] > 0);
  assert.ok(
    entries.some((e) => e.action === 'erasePerson' && e.status === 403),
    'refused attempts too',
  );
  const text = JSON.stringify(entries).toLowerCase();
  for (const word of o.words) assert.ok(!text.includes(word.toLowerCase()), 'no content in the audit log');
}
