import assert from 'node:assert/strict';
import type { MemstreamClient, ResponseEvent } from '@memstream/client';
import { waitFor } from '../../helpers/infra.js';
import { rejectsWith } from './evermemos-contract.js';

export interface People {
  readonly alice: MemstreamClient;
  readonly bob: MemstreamClient;
  readonly agent: MemstreamClient;
}

/**
 * memory-service through the client, in both layouts: conversations, messages, forks, sharing
 * and its levels, the ownership transfer, search, agents' bulk messages, summaries and context,
 * and the response resumer followed as an async iterator.
 */
export async function checkMemoryService(people: People, label: string): Promise<void> {
  const { alice, bob, agent } = people;
  const user = alice.memoryService.user;
  const trip = await user.create({ title: `Trip ${label}` });
  const m1 = await user.appendMessage(trip.id, { content: `Plan a trip to Lisbon ${label}` });
  const m2 = await user.appendMessage(trip.id, { content: 'In May?' });
  assert.deepEqual(
    (await user.listMessages(trip.id)).data.map((m) => m.id),
    [m1.id, m2.id],
  );
  const fork = await user.fork(trip.id, m2.id, { title: 'June instead', newMessage: { content: 'In June?' } });
  // A fork shows the history up to the message before the one it was made at.
  assert.equal(fork.forkedAtMessageId, m1.id);
  assert.ok((await user.forks(trip.id)).data.length >= 2);
  assert.ok((await user.list()).data.some((c) => c.id === trip.id));

  await rejectsWith(bob.memoryService.user.get(trip.id), { family: 'memory-service', status: 404, code: 'not_found' });
  assert.equal((await user.share(trip.id, 'bob', 'reader')).accessLevel, 'reader');
  assert.equal((await bob.memoryService.user.get(trip.id)).accessLevel, 'reader');
  await rejectsWith(bob.memoryService.user.appendMessage(trip.id, { content: 'may I?' }), {
    family: 'memory-service',
    status: 403,
    code: 'forbidden',
  });
  assert.equal((await user.updateMembership(trip.id, 'bob', 'writer')).accessLevel, 'writer');
  assert.ok((await user.memberships(trip.id)).data.some((m) => m.userId === 'bob'));

  assert.equal((await user.transferOwnership(trip.id, 'bob')).status, 'pending');
  assert.equal((await bob.memoryService.user.pendingTransfer(trip.id)).toUserId, 'bob');
  assert.equal((await bob.memoryService.user.declineTransfer(trip.id)).status, 'declined');
  const withdrawn = await user.transferOwnership(trip.id, 'bob');
  await alice.memoryService.conversations.endTransfer(withdrawn.id);
  await rejectsWith(user.pendingTransfer(trip.id), { family: 'memory-service', status: 404, code: 'not_found' });
  // The later transfer API: an offer by its own id, listed for its recipient; a second one is 409.
  const offer = await alice.memoryService.conversations.offerOwnership(trip.id, 'bob');
  assert.deepEqual([offer.fromUserId, offer.toUserId, offer.conversationTitle], ['alice', 'bob', `Trip ${label}`]);
  await rejectsWith(alice.memoryService.conversations.offerOwnership(trip.id, 'bob'), {
    family: 'memory-service',
    status: 409,
    code: 'TRANSFER_ALREADY_PENDING',
  });
  assert.equal((await bob.memoryService.conversations.ownershipOffer(offer.id)).conversationId, trip.id);
  const received = await bob.memoryService.conversations.ownershipOffers({ role: 'recipient', limit: 200 });
  assert.ok(received.data.some((o) => o.id === offer.id));
  await bob.memoryService.conversations.endTransfer(offer.id);
  await user.transferOwnership(trip.id, 'bob');
  assert.equal((await bob.memoryService.user.acceptTransfer(trip.id)).status, 'accepted');
  assert.equal((await bob.memoryService.user.get(trip.id)).ownerUserId, 'bob');
  await bob.memoryService.user.revokeMembership(trip.id, 'alice');
  await rejectsWith(user.get(trip.id), { family: 'memory-service', status: 404, code: 'not_found' });

  const found = await waitFor('the message searchable', async () => {
    const hits = await bob.memoryService.user.search({ query: `Lisbon ${label}`, topK: 5 });
    return hits.data.find((h) => h.message.id === m1.id);
  });
  assert.ok(found.score > 0);

  await checkCodeLayout(alice, agent, label);
  await bob.memoryService.user.delete(trip.id);
  await rejectsWith(bob.memoryService.user.get(trip.id), { family: 'memory-service', status: 404, code: 'not_found' });
}

async function checkCodeLayout(alice: MemstreamClient, agent: MemstreamClient, label: string): Promise<void> {
  const code = alice.memoryService.conversations;
  const notes = await code.create({ title: `Notes ${label}`, metadata: { label } });
  const first = await code.appendMessage(notes.id, { content: [{ type: 'text', text: 'first note' }] });
  assert.deepEqual(
    (await code.listMessages(notes.id)).data.map((m) => m.content),
    [[{ type: 'text', text: 'first note' }]],
  );
  assert.equal((await code.get(notes.id)).title, `Notes ${label}`);
  assert.equal((await code.shareAtForks(notes.id, 'carol', 'reader')).userId, 'carol');
  const branch = await code.fork(notes.id, first.id, { title: 'branch' });
  assert.equal(branch.forkedAtConversationId, notes.id);

  const bulk = await agent.memoryService.agent.appendMessages(notes.id, {
    messages: [
      { role: 'assistant', content: 'Noted.' },
      { role: 'system', content: 'likes notes', visibility: 'agent' },
    ],
  });
  assert.equal(bulk.data.length, 2);
  const last = (await agent.memoryService.conversations.listMessages(notes.id)).data.at(-1)!;
  await agent.memoryService.agent.createSummary(notes.id, {
    title: 'Note summary',
    summary: 'Notes so far',
    untilMessageId: last.id,
    summarizedAt: new Date().toISOString(),
  });
  assert.equal((await code.get(notes.id)).title, 'Note summary');
  const context = await agent.memoryService.agent.context(notes.id);
  assert.ok(context.messages.length >= 1);
  await rejectsWith(
    code.createSummary(notes.id, {
      title: 't',
      summary: 's',
      untilMessageId: last.id,
      summarizedAt: new Date().toISOString(),
    }),
    { family: 'memory-service', status: 403, code: 'forbidden' },
  );

  await code.recordResponse(notes.id, ['Hel', 'lo']);
  const events: ResponseEvent[] = [];
  const following = (async () => {
    for await (const event of code.followResponse(notes.id)) events.push(event);
  })();
  await waitFor('the replayed tokens read', async () => events.length >= 2);
  await code.recordResponse(notes.id, ['!'], true);
  await following;
  assert.deepEqual(events, [
    { type: 'token', text: 'Hel' },
    { type: 'token', text: 'lo' },
    { type: 'token', text: '!' },
    { type: 'done' },
  ]);

  await code.recordResponse(branch.id, ['x']);
  assert.equal((await code.cancelResponse(branch.id)).cancelled, true);
  await rejectsWith(code.recordResponse(branch.id, ['y']), { family: 'memory-service', status: 409, code: 'conflict' });

  await code.delete(notes.id);
  await rejectsWith(code.get(branch.id), { family: 'memory-service', status: 404, code: 'not_found' });
}
