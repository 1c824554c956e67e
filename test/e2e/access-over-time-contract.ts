import assert from 'node:assert/strict';
import { USERS, type Credentials } from './memory-service-matrix.js';

/**
 * Access that changes while something is open (issue 26): streams a person opened before losing
 * access, and ownership offers pending when their recipient or their conversation goes. The
 * people are the matrix's: the owner, a reader who is removed, a writer who stays, a stranger,
 * and an agent key.
 */

type Who = Record<string, string>;

async function call(base: string, who: Who, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function share(base: string, creds: Credentials, id: string, user: string, accessLevel: 'reader' | 'writer' | 'manager'): Promise<void> {
  const shared = await call(base, creds.owner, 'POST', `/v1/conversations/${id}/memberships`, { userId: user, accessLevel });
  assert.equal(shared.status, 201, JSON.stringify(shared.body));
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
  const offer = (id: string, to: string, who: Who = creds.owner) => call(base, who, 'POST', `/v1/conversations/${id}/transfer-ownership`, { newOwnerUserId: to });
  const accept = (id: string, who: Who) => call(base, who, 'POST', `/v1/conversations/${id}/transfer-ownership/accept`);
  const owner = async (id: string) => {
    const members = await call(base, creds.owner, 'GET', `/v1/conversations/${id}/memberships`);
    return (members.body['data'] as Array<{ userId: string; accessLevel: string }>).find((m) => m.accessLevel === 'owner')?.userId;
  };

  // The recipient removed: the offer ends with their membership.
  const a = await conversation();
  const offered = await offer(a, USERS.writer);
  assert.deepEqual([offered.status, offered.body['status']], [202, 'pending'], JSON.stringify(offered.body));
  const second = await offer(a, USERS.manager);
  assert.deepEqual([second.status, second.body['code'], (second.body['details'] as Record<string, unknown>)?.['existingTransferId']], [409, 'conflict', offered.body['id']], 'a second offer names the pending one');
  assert.equal((await call(base, creds.owner, 'DELETE', `/v1/conversations/${a}/memberships/${USERS.writer}`)).status, 204);
  assert.equal((await call(base, creds.owner, 'GET', `/v1/conversations/${a}/transfer-ownership`)).status, 404, 'no offer pending after the removal');
  assert.equal((await accept(a, creds.writer)).status, 404, 'the removed recipient cannot accept');
  assert.equal(await owner(a), USERS.owner);
  const toStranger = await offer(a, USERS.writer);
  assert.deepEqual([toStranger.status, toStranger.body['code']], [400, 'bad_request'], 'only a member is offered the conversation');

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
  assert.equal((await call(base, creds.reader, 'DELETE', `/v1/ownership-transfers/${again.body['id'] as string}`)).status, 204, 'the recipient declines');
  assert.equal((await accept(c, creds.reader)).status, 404);
  assert.equal(await owner(c), USERS.owner);
}
