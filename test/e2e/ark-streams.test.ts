import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedMemstream } from '../helpers/embedded.js';
import { uniqueName } from '../helpers/infra.js';
import { TEST_JWT_SECRET, userToken } from '../../harness/credentials.js';

/**
 * ARK's reference service keeps the chunks relayed to `/stream/{query}`, tells what it holds at
 * `GET /stream-statistics` and forgets it all on `DELETE /stream`. Here both keep to what the
 * caller may reach: statistics of the streams they may read, a purge of those they manage.
 */
const AGENT_KEY = 'ark-controller-key-0123456789';

type Headers = Record<string, string>;
type Stats = {
  total_queries: number;
  queries: Record<
    string,
    {
      total_chunks: number;
      completed: boolean;
      has_done_marker: boolean;
      chunk_types: Record<string, number>;
    }
  >;
};

async function send(base: string, headers: Headers, method: string, path: string, ndjson?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(ndjson === undefined ? {} : { 'content-type': 'application/x-ndjson' }) },
    body: ndjson,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const choice = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });

/** Two words, one tool call in two parts, a finish, and a chunk of no known kind. */
const RELAY = [
  choice({ content: 'Hi' }),
  choice({ content: ' there' }),
  choice({ tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '' } }] }),
  choice({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
  choice({}, 'stop'),
  JSON.stringify({ note: 'not a completion chunk' }),
].join('\n');

async function relay(base: string, who: Headers, query: string, body = RELAY) {
  const res = await send(base, who, 'POST', `/stream/${encodeURIComponent(query)}`, `${body}\n`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function statistics(base: string, who: Headers): Promise<Stats> {
  const res = await send(base, who, 'GET', '/stream-statistics');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as unknown as Stats;
}

async function people(t: TestContext) {
  const base = await embeddedMemstream(t, {
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    AUTH_API_KEYS: `controller:${AGENT_KEY}`,
  });
  const token = async (user: string) => ({
    authorization: `Bearer ${await userToken(user, { secret: TEST_JWT_SECRET })}`,
  });
  return { base, ana: await token('ana'), ben: await token('ben'), agent: { 'x-api-key': AGENT_KEY } };
}

test('stream statistics count each relayed stream as ARK does, and only the streams the caller may read', async (t) => {
  const { base, ana, ben, agent } = await people(t);
  const [anas, bens] = [uniqueName('ana.query'), uniqueName('ben-query')];
  await relay(base, ana, anas);
  await relay(base, ben, bens, choice({ content: 'only ben' }));

  const open = await statistics(base, ana);
  assert.deepEqual(open, {
    total_queries: 1,
    queries: {
      [anas]: {
        total_chunks: 6,
        completed: false,
        has_done_marker: false,
        chunk_types: { content: 2, tool_calls: 2, finish_reason: 1, unknown: 1 },
      },
    },
  });

  // Completion answers under both names, and counts the [DONE] it ends the stream with.
  const done = await send(base, ana, 'POST', `/stream/${encodeURIComponent(anas)}/complete`);
  assert.deepEqual([done.status, done.body], [200, { status: 'completed', session: anas, query: anas }]);
  const closed = (await statistics(base, ana)).queries[anas]!;
  assert.deepEqual([closed.total_chunks, closed.completed, closed.has_done_marker], [7, true, true]);
  assert.deepEqual(closed.chunk_types, { content: 2, tool_calls: 2, finish_reason: 1, unknown: 1 });

  assert.deepEqual(Object.keys((await statistics(base, ben)).queries), [bens]);
  const all = await statistics(base, agent);
  assert.ok(anas in all.queries && bens in all.queries, JSON.stringify(all));
  assert.equal(all.total_queries, Object.keys(all.queries).length);
});

test('a stream purge forgets the streams its caller manages and leaves everyone else’s', async (t) => {
  const { base, ana, ben, agent } = await people(t);
  const [anas, bens] = [uniqueName('ana-query'), uniqueName('ben-query')];
  await relay(base, ana, anas);
  await relay(base, ben, bens);
  assert.equal((await send(base, ana, 'POST', `/stream/${anas}/complete`)).status, 200);

  const purged = await send(base, ana, 'DELETE', '/stream');
  assert.deepEqual(
    [purged.status, purged.body],
    [200, { status: 'success', message: 'Stream data purged', sessions: [anas] }],
  );
  assert.deepEqual(await statistics(base, ana), { total_queries: 0, queries: {} });
  assert.ok(bens in (await statistics(base, ben)).queries, 'ben’s stream stays');

  // The purge took its completion too (a new completion of nothing is unknown), and the id stays
  // ana's: she relays and completes it afresh, ben cannot take it over.
  assert.equal((await send(base, ana, 'POST', `/stream/${anas}/complete`)).status, 404);
  await relay(base, ana, anas, choice({ content: 'again' }));
  const again = (await statistics(base, ana)).queries[anas]!;
  assert.deepEqual([again.total_chunks, again.completed], [1, false]);
  assert.equal((await send(base, ben, 'POST', `/stream/${anas}`, `${choice({ content: 'mine' })}\n`)).status, 403);

  // The agent key reaches every stream: its purge empties them all, twice without error.
  for (let i = 0; i < 2; i++) {
    const everything = await send(base, agent, 'DELETE', '/stream');
    assert.equal(everything.status, 200, JSON.stringify(everything.body));
  }
  assert.deepEqual(await statistics(base, agent), { total_queries: 0, queries: {} });
});
