import assert from 'node:assert/strict';
import { waitFor } from '../helpers/infra.js';
import { useCredentials } from '../../harness/credentials.js';
import { contents, openSse, type SseReader } from '../../harness/sse-client.js';
import { USERS, type Credentials } from './memory-service-matrix.js';

/**
 * Access that changes while something is open (issue 26): streams a person opened before losing
 * access, and ownership offers pending when their recipient or their conversation goes. The
 * people are the matrix's: the owner, a reader who is removed, a writer who stays, a stranger,
 * and an agent key.
 */

type Who = Record<string, string>;

export async function call(
  base: string,
  who: Who,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function share(
  base: string,
  creds: Credentials,
  id: string,
  user: string,
  accessLevel: 'reader' | 'writer' | 'manager',
): Promise<void> {
  const shared = await call(base, creds.owner, 'POST', `/v1/conversations/${id}/memberships`, {
    userId: user,
    accessLevel,
  });
  assert.equal(shared.status, 201, JSON.stringify(shared.body));
}

async function openAs(who: Who, url: string): Promise<SseReader> {
  useCredentials(url, who);
  const reader = await openSse(url);
  useCredentials(url, {});
  assert.equal(reader.status, 200, url);
  return reader;
}

/**
 * Waits until every stream in `gone` has ended and returns how long after `since` (when the
 * change was asked for) the last one did; fails naming the streams still open.
 */
async function endedWithin(
  gone: ReadonlyArray<{ name: string; stream: SseReader; endedAt: () => number | undefined }>,
  since: number,
): Promise<number> {
  await waitFor("the removed person's streams ended", async () => gone.every((g) => g.stream.isEnded()), 10_000).catch(
    () => {
      throw new Error(
        `still open: ${gone
          .filter((g) => !g.stream.isEnded())
          .map((g) => g.name)
          .join(', ')}`,
      );
    },
  );
  return Math.max(...gone.map((g) => g.endedAt()! - since));
}

function timed(name: string, stream: SseReader) {
  let at: number | undefined;
  void stream.ended.then(() => (at = Date.now()));
  return { name, stream, endedAt: () => at };
}

/**
 * A member removed while their streams are open: their ARK streams and response-resumer streams
 * end within a second on every replica (`apis`; writes go to the first), with an error frame and
 * nothing sent after the removal; an agent's and a remaining member's streams go on. Deleting the
 * conversation then ends the remaining member's resumer stream too. Returns the slowest end seen.
 */
export async function checkStreamRevocation(
  apis: readonly string[],
  creds: Credentials,
  prefix: string,
): Promise<number> {
  const api = apis[0]!;
  const latencies: number[] = [];
  const all: SseReader[] = [];
  try {
    // ARK: the owner's session, shared with the reader (to be removed) and the writer (who stays).
    const session = `${prefix}-ark`;
    const post = (who: Who, content: string) =>
      call(api, who, 'POST', '/messages', { session_id: session, messages: [{ role: 'user', content }] });
    assert.equal((await post(creds.owner, 'kickoff')).status, 200);
    await share(api, creds, session, USERS.reader, 'reader');
    await share(api, creds, session, USERS.writer, 'writer');
    const ark = (caller: 'reader' | 'writer' | 'agent') =>
      Promise.all(
        apis.map(async (base, i) => ({
          name: `ARK ${caller} on replica ${i}`,
          stream: await openAs(creds[caller], `${base}/stream/${session}`),
        })),
      );
    const [removed, remaining, agents] = await Promise.all([ark('reader'), ark('writer'), ark('agent')]);
    all.push(...[...removed, ...remaining, ...agents].map((s) => s.stream));
    // A message every stream received shows each is live (its access watch set up before that).
    assert.equal((await post(creds.agent, 'before')).status, 200);
    for (const s of [...removed, ...remaining, ...agents])
      await waitFor(`${s.name} live`, async () => contents(s.stream).includes('before'), 10_000);

    const watched = removed.map((s) => timed(s.name, s.stream));
    const removedAt = Date.now();
    assert.equal(
      (await call(api, creds.owner, 'DELETE', `/v1/conversations/${session}/memberships/${USERS.reader}`)).status,
      204,
    );
    latencies.push(await endedWithin(watched, removedAt));
    assert.equal((await post(creds.agent, 'after')).status, 200);
    for (const s of [...remaining, ...agents]) {
      await waitFor(
        `${s.name} got the message after the removal`,
        async () => contents(s.stream).includes('after'),
        10_000,
      );
      assert.ok(!s.stream.isEnded(), `${s.name} goes on`);
    }
    for (const s of removed) {
      assert.ok(!contents(s.stream).includes('after'), `${s.name} got nothing after the removal`);
      assert.ok(
        s.stream.frames.some((f) => f.event === 'error'),
        `${s.name} was told why it ended`,
      );
    }
    useCredentials(api, creds.reader);
    assert.equal((await openSse(`${api}/stream/${session}`)).status, 404, 'the removed reader cannot open it again');
    useCredentials(api, {});

    // The response resumer: the same people on a memory-service conversation.
    const created = await call(api, creds.owner, 'POST', '/v1/conversations', { title: 'resumed' });
    assert.equal(created.status, 201);
    const id = created.body['id'] as string;
    await share(api, creds, id, USERS.reader, 'reader');
    await share(api, creds, id, USERS.writer, 'writer');
    const record = (tokens: string[]) => call(api, creds.agent, 'POST', `/v1/conversations/${id}/response`, { tokens });
    assert.equal((await record(['one '])).status, 200);
    const follow = (caller: 'reader' | 'writer' | 'agent') =>
      Promise.all(
        apis.map(async (base, i) => ({
          name: `resumer ${caller} on replica ${i}`,
          stream: await openAs(creds[caller], `${base}/v1/conversations/${id}/response`),
        })),
      );
    const [rRemoved, rRemaining, rAgents] = await Promise.all([follow('reader'), follow('writer'), follow('agent')]);
    all.push(...[...rRemoved, ...rRemaining, ...rAgents].map((s) => s.stream));
    const tokens = (s: SseReader) =>
      s.frames.filter((f) => f.event === 'token').map((f) => (f.data as { text: string }).text);
    for (const s of [...rRemoved, ...rRemaining, ...rAgents])
      await waitFor(`${s.name} following`, async () => tokens(s.stream).includes('one '), 10_000);

    const rWatched = rRemoved.map((s) => timed(s.name, s.stream));
    const rRemovedAt = Date.now();
    assert.equal(
      (await call(api, creds.owner, 'DELETE', `/v1/conversations/${id}/memberships/${USERS.reader}`)).status,
      204,
    );
    latencies.push(await endedWithin(rWatched, rRemovedAt));
    assert.equal((await record(['two '])).status, 200);
    for (const s of [...rRemaining, ...rAgents])
      await waitFor(`${s.name} got the token after the removal`, async () => tokens(s.stream).includes('two '), 10_000);
    for (const s of rRemoved) {
      assert.deepEqual(tokens(s.stream), ['one '], `${s.name} got nothing after the removal`);
      assert.equal(s.stream.frames.at(-1)?.event, 'error', `${s.name} was told why it ended`);
    }

    // Deleting the conversation ends the remaining member's stream; the agent's goes on.
    const deletedWatch = rRemaining.map((s) => timed(s.name, s.stream));
    const deletedAt = Date.now();
    assert.equal((await call(api, creds.owner, 'DELETE', `/v1/conversations/${id}`)).status, 204);
    latencies.push(await endedWithin(deletedWatch, deletedAt));
    for (const s of rAgents) assert.ok(!s.stream.isEnded(), `${s.name} goes on`);
  } finally {
    for (const s of all) s.close();
  }
  const slowest = Math.max(...latencies);
  assert.ok(slowest < 1000, `a removed person's stream ended ${slowest} ms after the change`);
  return slowest;
}

/**
 * Ownership offers end when their recipient or their conversation goes, and the owner can take
 * one back (as the memory-service does, at DELETE /v1/ownership-transfers/{id}): an offer's
 * recipient removed cannot accept it, nor can anyone once the conversation is deleted, and
 * ownership stays where it was.
 */
export async function checkTransferEndings(base: string, creds: Credentials): Promise<void> {
  const conversation = async () => {
    const created = await call(base, creds.owner, 'POST', '/v1/conversations', { title: 'offered' });
    assert.equal(created.status, 201);
    const id = created.body['id'] as string;
    for (const level of ['manager', 'writer', 'reader'] as const) await share(base, creds, id, USERS[level], level);
    return id;
  };
  const offer = (id: string, to: string, who: Who = creds.owner) =>
    call(base, who, 'POST', `/v1/conversations/${id}/transfer-ownership`, { newOwnerUserId: to });
  const accept = (id: string, who: Who) => call(base, who, 'POST', `/v1/conversations/${id}/transfer-ownership/accept`);
  const owner = async (id: string) => {
    const members = await call(base, creds.owner, 'GET', `/v1/conversations/${id}/memberships`);
    return (members.body['data'] as Array<{ userId: string; accessLevel: string }>).find(
      (m) => m.accessLevel === 'owner',
    )?.userId;
  };

  // The recipient removed: the offer ends with their membership.
  const a = await conversation();
  const offered = await offer(a, USERS.writer);
  assert.deepEqual([offered.status, offered.body['status']], [202, 'pending'], JSON.stringify(offered.body));
  const second = await offer(a, USERS.manager);
  assert.deepEqual(
    [second.status, second.body['code'], (second.body['details'] as Record<string, unknown>)?.['existingTransferId']],
    [409, 'TRANSFER_ALREADY_PENDING', offered.body['id']],
    'a second offer names the pending one',
  );
  assert.equal(
    (await call(base, creds.owner, 'DELETE', `/v1/conversations/${a}/memberships/${USERS.writer}`)).status,
    204,
  );
  assert.equal(
    (await call(base, creds.owner, 'GET', `/v1/conversations/${a}/transfer-ownership`)).status,
    404,
    'no offer pending after the removal',
  );
  assert.equal((await accept(a, creds.writer)).status, 404, 'the removed recipient cannot accept');
  assert.equal(await owner(a), USERS.owner);
  // The later route offers a conversation to members only (the first route's offer to anyone is
  // in ownership-offer-contract.ts).
  const toStranger = await call(base, creds.owner, 'POST', '/v1/ownership-transfers', {
    conversationId: a,
    newOwnerUserId: USERS.writer,
  });
  assert.deepEqual(
    [toStranger.status, toStranger.body['code']],
    [400, 'bad_request'],
    'only a member is offered the conversation at /v1/ownership-transfers',
  );

  // The conversation deleted: its offer ends with it.
  const b = await conversation();
  assert.equal((await offer(b, USERS.manager)).status, 202);
  assert.equal((await call(base, creds.owner, 'DELETE', `/v1/conversations/${b}`)).status, 204);
  const late = await accept(b, creds.manager);
  assert.equal(late.status, 404, `accepting an offer on a deleted conversation: ${JSON.stringify(late.body)}`);

  // The owner withdraws; the recipient declines; nobody else ends an offer.
  const c = await conversation();
  const pending = await offer(c, USERS.reader);
  const transfer = `/v1/ownership-transfers/${pending.body['id'] as string}`;
  for (const caller of ['manager', 'writer', 'stranger'] as const) {
    const refused = await call(base, creds[caller], 'DELETE', transfer);
    assert.deepEqual([refused.status, refused.body['code']], [403, 'forbidden'], `${caller} ending the owner's offer`);
  }
  assert.equal((await call(base, creds.owner, 'DELETE', transfer)).status, 204);
  assert.equal((await call(base, creds.owner, 'DELETE', transfer)).status, 404, 'withdrawn once');
  assert.equal((await call(base, creds.owner, 'GET', `/v1/conversations/${c}/transfer-ownership`)).status, 404);
  assert.equal((await accept(c, creds.reader)).status, 404, 'a withdrawn offer cannot be accepted');
  assert.equal(await owner(c), USERS.owner);
  const again = await offer(c, USERS.reader);
  assert.equal(again.status, 202, 'a new offer once the first was withdrawn');
  assert.equal(
    (await call(base, creds.reader, 'DELETE', `/v1/ownership-transfers/${again.body['id'] as string}`)).status,
    204,
    'the recipient declines',
  );
  assert.equal((await accept(c, creds.reader)).status, 404);
  assert.equal(await owner(c), USERS.owner);
}
