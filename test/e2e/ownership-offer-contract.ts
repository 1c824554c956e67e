import assert from 'node:assert/strict';
import { bearer, userToken } from '../../harness/credentials.js';
import { uniqueName } from '../helpers/infra.js';
import { call } from './access-over-time-contract.js';
import { USERS, type Credentials } from './memory-service-matrix.js';

/**
 * The two transfer routes of the memory-service, each with the rule of the version it comes from:
 * `/{id}/transfer-ownership` (1b5ccae3) offers a conversation to anyone but its owner, and
 * `/v1/ownership-transfers` (a9c6936a on) only to a member. A person offered a conversation
 * without being a member sees the offer and nothing else of it until they accept; then they own
 * it and the former owner manages it. Both routes share one pending offer per conversation.
 */
export async function checkOwnershipOffers(base: string, creds: Credentials): Promise<void> {
  const conversation = async (title: string) => {
    const created = await call(base, creds.owner, 'POST', '/v1/conversations', { title });
    assert.equal(created.status, 201);
    const id = created.body['id'] as string;
    const wrote = await call(base, creds.owner, 'POST', `/v1/conversations/${id}/messages`, {
      content: [{ type: 'text', text: 'the plan' }],
    });
    assert.equal(wrote.status, 201);
    return id;
  };
  const offerAtFirstRoute = (id: string, to: string) =>
    call(base, creds.owner, 'POST', `/v1/conversations/${id}/transfer-ownership`, { newOwnerUserId: to });
  const offerAtLaterRoute = (id: string, to: string) =>
    call(base, creds.owner, 'POST', '/v1/ownership-transfers', { conversationId: id, newOwnerUserId: to });
  const stranger = creds.stranger;

  // The first route offers to a person who is not a member: 202, as 1b5ccae3 answers.
  const a = await conversation('offered to a stranger');
  const offered = await offerAtFirstRoute(a, USERS.stranger);
  assert.deepEqual(
    [offered.status, offered.body['status'], offered.body['toUserId']],
    [202, 'pending', USERS.stranger],
    JSON.stringify(offered.body),
  );
  const transfer = `/v1/ownership-transfers/${offered.body['id'] as string}`;

  // Before accepting, the recipient sees the offer (without the conversation's title) and nothing else.
  assert.equal((await call(base, stranger, 'GET', `/v1/conversations/${a}/transfer-ownership`)).status, 200);
  const seen = await call(base, stranger, 'GET', transfer);
  assert.equal(seen.status, 200, JSON.stringify(seen.body));
  assert.deepEqual(Object.keys(seen.body).sort(), ['conversationId', 'createdAt', 'fromUserId', 'id', 'toUserId']);
  const received = await call(base, stranger, 'GET', '/v1/ownership-transfers?role=recipient');
  const listed = (received.body['data'] as Array<Record<string, unknown>>).find((t) => t['conversationId'] === a);
  assert.ok(listed && !('conversationTitle' in listed), JSON.stringify(received.body));
  const ownerSees = await call(base, creds.owner, 'GET', transfer);
  assert.equal(ownerSees.body['conversationTitle'], 'offered to a stranger', 'the owner is shown the title');
  const refused: Array<[string, string, unknown?]> = [
    ['GET', `/v1/conversations/${a}`],
    ['GET', `/v1/conversations/${a}/messages`],
    ['GET', `/v1/conversations/${a}/forks`],
    ['GET', `/v1/conversations/${a}/memberships`],
    ['POST', `/v1/conversations/${a}/messages`, { content: [{ type: 'text', text: 'mine soon' }] }],
    ['POST', `/v1/conversations/${a}/memberships`, { userId: 'friend', accessLevel: 'reader' }],
    ['POST', `/v1/conversations/${a}/transfer-ownership`, { newOwnerUserId: 'friend' }],
    ['DELETE', `/v1/conversations/${a}`],
  ];
  for (const [method, path, body] of refused) {
    const answer = await call(base, stranger, method, path, body);
    assert.deepEqual([answer.status, answer.body['code']], [403, 'forbidden'], `${method} ${path} before accepting`);
  }
  assert.equal((await call(base, stranger, 'GET', `/v1/user/conversations/${a}`)).status, 404);
  const theirs = await call(base, stranger, 'GET', '/v1/conversations?limit=200');
  assert.ok(!(theirs.body['data'] as Array<{ id: string }>).some((c) => c.id === a), 'not among their conversations');

  // Accepting (at the later route: one offer, either route) makes them the owner and the former owner a manager.
  assert.equal((await call(base, creds.owner, 'POST', `${transfer}/accept`)).status, 403, 'the sender cannot accept');
  const accepted = await call(base, stranger, 'POST', `${transfer}/accept`);
  assert.equal(accepted.status, 204, JSON.stringify(accepted.body));
  const now = await call(base, stranger, 'GET', `/v1/conversations/${a}`);
  assert.deepEqual([now.status, now.body['ownerUserId'], now.body['accessLevel']], [200, USERS.stranger, 'owner']);
  assert.equal((await call(base, stranger, 'GET', `/v1/conversations/${a}/messages`)).status, 200);
  const members = await call(base, stranger, 'GET', `/v1/conversations/${a}/memberships`);
  assert.deepEqual(
    (members.body['data'] as Array<{ userId: string; accessLevel: string }>).map((m) => [m.userId, m.accessLevel]),
    [
      [USERS.stranger, 'owner'],
      [USERS.owner, 'manager'],
    ],
  );
  assert.equal((await call(base, stranger, 'GET', transfer)).status, 404, 'an accepted offer is no longer pending');
  assert.equal((await offerAtFirstRoute(a, USERS.manager)).status, 403, 'the former owner no longer offers it');

  // Declined, the offer leaves the stranger a stranger.
  const b = await conversation('declined by a stranger');
  assert.equal((await offerAtFirstRoute(b, USERS.stranger)).status, 202);
  const declined = await call(base, stranger, 'POST', `/v1/conversations/${b}/transfer-ownership/decline`);
  assert.deepEqual([declined.status, declined.body['status']], [200, 'declined']);
  assert.equal((await call(base, stranger, 'GET', `/v1/conversations/${b}`)).status, 403);

  // The later route: members only, 201 with the offer; one pending offer, whichever route made it.
  const c = await conversation('offered to a member');
  const pat = uniqueName('pat');
  const patHeaders = bearer(await userToken(pat));
  const shared = await call(base, creds.owner, 'POST', `/v1/conversations/${c}/memberships`, {
    userId: pat,
    accessLevel: 'reader',
  });
  assert.equal(shared.status, 201);
  const toStranger = await offerAtLaterRoute(c, USERS.stranger);
  assert.deepEqual([toStranger.status, toStranger.body['code']], [400, 'bad_request']);
  const first = await offerAtLaterRoute(c, pat);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.deepEqual(first.body, {
    id: first.body['id'],
    conversationId: c,
    conversationTitle: 'offered to a member',
    fromUserId: USERS.owner,
    toUserId: pat,
    createdAt: first.body['createdAt'],
  });
  for (const again of [await offerAtLaterRoute(c, pat), await offerAtFirstRoute(c, USERS.stranger)]) {
    const details = again.body['details'] as Record<string, unknown> | undefined;
    assert.deepEqual(
      [again.status, again.body['code'], details?.['existingTransferId']],
      [409, 'TRANSFER_ALREADY_PENDING', first.body['id']],
    );
  }
  const pending = await call(base, patHeaders, 'GET', `/v1/conversations/${c}/transfer-ownership`);
  assert.equal(pending.body['id'], first.body['id'], 'the first route sees the offer made at the later one');

  // The recipient's offers, a page at a time, oldest first.
  const d = await conversation('offered to a member too');
  await call(base, creds.owner, 'POST', `/v1/conversations/${d}/memberships`, { userId: pat, accessLevel: 'writer' });
  const second = await offerAtLaterRoute(d, pat);
  assert.equal(second.status, 201);
  const page1 = await call(base, patHeaders, 'GET', '/v1/ownership-transfers?role=recipient&limit=1');
  const page2 = await call(
    base,
    patHeaders,
    'GET',
    `/v1/ownership-transfers?role=recipient&limit=1&afterCursor=${page1.body['afterCursor'] as string}`,
  );
  const ids = (page: { body: Record<string, unknown> }) =>
    (page.body['data'] as Array<{ id: string }>).map((t) => t.id);
  assert.deepEqual(
    [ids(page1), page1.body['afterCursor'], ids(page2), page2.body['afterCursor']],
    [[first.body['id']], first.body['id'], [second.body['id']], null],
  );
  const sent = await call(base, patHeaders, 'GET', '/v1/ownership-transfers?role=sender');
  assert.deepEqual(sent.body['data'], [], 'pat offered nothing');
  for (const query of [
    'afterCursor=00000000-0000-4000-8000-000000000000',
    'afterCursor=nope',
    'role=owner',
    'limit=0',
  ]) {
    const bad = await call(base, patHeaders, 'GET', `/v1/ownership-transfers?${query}`);
    assert.deepEqual([bad.status, bad.body['code']], [400, 'bad_request'], query);
  }
  // Someone else's transfer is no cursor of yours, and no transfer you may read.
  const notYours = await call(
    base,
    stranger,
    'GET',
    `/v1/ownership-transfers?afterCursor=${first.body['id'] as string}`,
  );
  assert.equal(notYours.status, 400);
  assert.equal(
    (await call(base, stranger, 'GET', `/v1/ownership-transfers/${first.body['id'] as string}`)).status,
    404,
  );
  const theirAccept = await call(
    base,
    stranger,
    'POST',
    `/v1/ownership-transfers/${first.body['id'] as string}/accept`,
  );
  assert.deepEqual([theirAccept.status, theirAccept.body['code']], [403, 'forbidden']);
}
