import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRequestLedger } from '@memstream/fanout';
import { readRequestStatus } from '@memstream/ingest';
import {
  appendMessages,
  claimEpisodes,
  completeEpisode,
  insertEpisodes,
  recordRequestOutcomes,
  type Store,
} from '@memstream/store';
import { migratedPglite } from '../../../test/helpers/migrated-pglite.js';

const everyone = async () => true;

// One database for the file; each test has its own request and message ids.
let deps: { store: Store; ledger: MemoryRequestLedger };
before(async () => {
  const store = await migratedPglite();
  deps = { store, ledger: new MemoryRequestLedger(60) };
});
after(() => deps.store.close());

async function storeMessage(store: Store, requestId: string, messageId: string, conversationId: string) {
  const [stored] = await appendMessages(store, [
    {
      requestId,
      message: {
        conversation_id: conversationId,
        message_id: messageId,
        sender_id: 'u1',
        sender_name: 'User One',
        role: 'user',
        content: 'we meet on friday',
        created_at: new Date('2025-01-15T02:00:00Z'),
        refer_list: [],
        metadata: {},
        source_api: 'evermemos',
      },
    },
  ]);
  return stored!.message;
}

test('a request nobody knows has no status, and one the writer marked is accepted until its outcome is recorded', async () => {
  assert.equal(await readRequestStatus(deps, 'r-unknown', everyone), undefined);
  await deps.ledger.markAccepted('r1');
  assert.deepEqual(await readRequestStatus(deps, 'r1', everyone), { status: 'accepted' });
  await storeMessage(deps.store, 'r1', 'm1', 'g1');
  const status = await readRequestStatus(deps, 'r1', everyone);
  assert.ok(status && status.status !== 'accepted');
  assert.equal(status.status, 'stored', 'the outcome row outranks the marker');
  assert.deepEqual(
    [status.outcome.message_id, status.outcome.result?.['sequence'], status.extraction],
    ['m1', 0, undefined],
  );
});

test('a refused write reads as failed with its error, even while its accepted marker lives', async () => {
  await deps.ledger.markAccepted('r2');
  await recordRequestOutcomes(deps.store, [
    {
      request_id: 'r2',
      kind: 'message',
      status: 'failed',
      group_id: 'g1',
      message_id: 'm2',
      duplicate: false,
      result: null,
      error_code: 'FORBIDDEN',
      error_message: 'not a member',
    },
  ]);
  const status = await readRequestStatus(deps, 'r2', everyone);
  assert.ok(status && status.status !== 'accepted');
  assert.deepEqual([status.status, status.outcome.error_code, status.extraction], ['failed', 'FORBIDDEN', undefined]);
});

test('a stored message is extracted once its episode has memories, and that is shown only to who may read the group', async () => {
  const message = await storeMessage(deps.store, 'r3', 'm3', 'g3');
  const [episode] = await insertEpisodes(deps.store, 'g3', [
    {
      startSeq: message.seq,
      endSeq: message.seq,
      messageIds: ['m3'],
      startTime: new Date(message.created_at),
      endTime: new Date(message.created_at),
      reason: 'flush',
    },
  ]);
  const pending = await readRequestStatus(deps, 'r3', everyone);
  assert.ok(pending && pending.status !== 'accepted');
  assert.deepEqual(
    [pending.status, pending.extraction?.status, pending.extraction?.episode_id],
    ['stored', 'pending', episode!.id],
  );

  const [claimed] = await claimEpisodes(deps.store, {
    group: episode!.group_key,
    ids: [episode!.id],
    limit: 1,
    leaseMs: 60_000,
  });
  const memories = await deps.store.transaction((tx) =>
    completeEpisode(tx, claimed!, [{ userId: null, title: 'Friday', content: 'They meet on Friday.' }], {
      extractor: 'test',
      participants: ['u1'],
    }),
  );
  const extracted = await readRequestStatus(deps, 'r3', everyone);
  assert.ok(extracted && extracted.status !== 'accepted');
  assert.deepEqual(
    [extracted.status, extracted.extraction?.status, extracted.extraction?.memory_ids],
    ['extracted', 'extracted', memories!.map((m) => m.id)],
  );

  const asked: string[] = [];
  const outsider = await readRequestStatus(deps, 'r3', async (groupId) => {
    asked.push(groupId);
    return false;
  });
  assert.ok(outsider && outsider.status !== 'accepted');
  assert.deepEqual([outsider.status, outsider.extraction, asked], ['stored', undefined, ['g3']]);
});
