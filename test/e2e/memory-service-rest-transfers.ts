import assert from 'node:assert/strict';
import type { Scenario } from './memory-service-rest-conversations.js';
import type { World } from './memory-service-rest-world.js';

/**
 * The memory-service's ownership-transfers REST feature, which its commit a9c6936a (two days after
 * 1b5ccae3) added with `/v1/ownership-transfers` and which it still runs at its head (where the
 * pending offer is named in `details.existingTransferId`): our own code, written from the feature.
 * Every scenario starts as alice with a conversation of hers that bob manages.
 */
const FEATURE = 'Ownership Transfers REST API';
const transfers = (name: string, run: (w: World) => Promise<void>): Scenario => ({
  feature: FEATURE,
  name,
  run: async (w) => {
    w.asUser('alice');
    await w.haveConversation('Transfer Test Conversation');
    await w.call('POST', `${w.conv()}/memberships`, { userId: 'bob', accessLevel: 'manager' });
    w.status(201);
    await run(w);
  },
});

const offer = (w: World, newOwnerUserId: string) =>
  w.call('POST', '/v1/ownership-transfers', { conversationId: w.conversationId, newOwnerUserId });

/** Alice offers the conversation to bob: 201, and the transfer's id is kept. */
const offeredToBob = async (w: World): Promise<string> => {
  await offer(w, 'bob');
  w.status(201);
  return w.set('transferId', 'id');
};

const one = (id: string) => `/v1/ownership-transfers/${encodeURIComponent(id)}`;

const hasMember = (w: World, userId: string, level: string) =>
  assert.ok(
    (w.last.body?.data ?? []).some(
      (m: { userId: string; accessLevel: string }) => m.userId === userId && m.accessLevel === level,
    ),
    `no membership of ${userId} as ${level}: ${w.last.text}`,
  );

export const TRANSFERS: readonly Scenario[] = [
  transfers('Owner can create ownership transfer', async (w) => {
    await offer(w, 'bob');
    w.status(201);
    w.fieldIs('fromUserId', 'alice');
    w.fieldIs('toUserId', 'bob');
    w.fieldIs('conversationId', w.conversationId);
  }),
  transfers('Cannot create transfer if not owner', async (w) => {
    w.asUser('bob');
    await offer(w, 'charlie');
    w.status(403);
    w.errorCode('forbidden');
  }),
  transfers('Cannot create second transfer while one is pending', async (w) => {
    const first = await offeredToBob(w);
    await offer(w, 'bob');
    w.status(409);
    w.contains('existingTransferId');
    w.fieldIs('details.existingTransferId', first);
    w.fieldIs('code', 'TRANSFER_ALREADY_PENDING');
  }),
  transfers('Cannot transfer to non-member', async (w) => {
    await offer(w, 'stranger');
    w.status(400);
    w.errorCode('bad_request');
  }),
  transfers('Cannot transfer to self', async (w) => {
    await offer(w, 'alice');
    w.status(400);
    w.errorCode('bad_request');
  }),
  transfers('List transfers as sender', async (w) => {
    await offeredToBob(w);
    await w.call('GET', '/v1/ownership-transfers', undefined, { role: 'sender' });
    w.status(200);
    w.atLeast(1);
  }),
  transfers('List transfers as recipient', async (w) => {
    await offeredToBob(w);
    w.asUser('bob');
    await w.call('GET', '/v1/ownership-transfers', undefined, { role: 'recipient' });
    w.status(200);
    w.atLeast(1);
  }),
  transfers('List all transfers', async (w) => {
    await offeredToBob(w);
    await w.call('GET', '/v1/ownership-transfers');
    w.status(200);
    w.atLeast(1);
  }),
  transfers('Sender can get transfer details', async (w) => {
    const id = await offeredToBob(w);
    await w.call('GET', one(id));
    w.status(200);
    w.fieldIs('id', id);
  }),
  transfers('Recipient can get transfer details', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('bob');
    await w.call('GET', one(id));
    w.status(200);
    w.fieldIs('id', id);
  }),
  transfers('Non-participant cannot see transfer', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('charlie');
    await w.call('GET', one(id));
    w.status(404);
  }),
  transfers('Recipient can accept transfer', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('bob');
    await w.call('POST', `${one(id)}/accept`);
    w.status(204);
    await w.call('GET', `${w.conv()}/memberships`);
    w.status(200);
    hasMember(w, 'bob', 'owner');
    hasMember(w, 'alice', 'manager');
  }),
  transfers('Sender cannot accept own transfer', async (w) => {
    const id = await offeredToBob(w);
    await w.call('POST', `${one(id)}/accept`);
    w.status(403);
    w.errorCode('forbidden');
  }),
  transfers('Cannot accept already-accepted transfer', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('bob');
    await w.call('POST', `${one(id)}/accept`);
    w.status(204);
    await w.call('POST', `${one(id)}/accept`);
    w.status(404);
  }),
  transfers('Sender can cancel (delete) transfer', async (w) => {
    const id = await offeredToBob(w);
    await w.call('DELETE', one(id));
    w.status(204);
    await w.call('GET', one(id));
    w.status(404);
  }),
  transfers('Recipient can decline (delete) transfer', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('bob');
    await w.call('DELETE', one(id));
    w.status(204);
  }),
  transfers('Non-participant cannot delete transfer', async (w) => {
    const id = await offeredToBob(w);
    w.asUser('charlie');
    await w.call('DELETE', one(id));
    w.status(403);
    w.errorCode('forbidden');
  }),
  transfers('Removing transfer recipient deletes pending transfer', async (w) => {
    const id = await offeredToBob(w);
    await w.call('GET', one(id));
    w.status(200);
    await w.call('DELETE', `${w.conv()}/memberships/bob`);
    w.status(204);
    await w.call('GET', one(id));
    w.status(404);
  }),
];
