import assert from 'node:assert/strict';
import {
  claimEpisodes,
  claimSummary,
  completeEpisode,
  completeSummary,
  insertEpisodes,
  type NewEpisode,
  startSummary,
  type Store,
} from '@memstream/store';

const AT = new Date(Date.UTC(2025, 0, 15, 10));

/**
 * An episode of `span`, inserted, claimed and completed with `memories` by the extractor's own
 * writers; resolves with the memories stored.
 */
export async function extractEpisode(
  store: Store,
  conversation: string,
  span: NewEpisode,
  memories: ReadonlyArray<{ userId: string; title: string; content: string }>,
  participants: string[],
) {
  const [episode] = await insertEpisodes(store, conversation, [span]);
  const [claimed] = await claimEpisodes(store, {
    group: episode!.group_key,
    ids: [episode!.id],
    limit: 1,
    leaseMs: 60_000,
  });
  return (await store.transaction((tx) =>
    completeEpisode(tx, claimed!, memories, { extractor: 'test', participants }),
  ))!;
}

/**
 * What the extractor and summarizer store for a conversation's message `seq`, by their own
 * writers: an episode of it, its memories for two people, and a summary up to it (built on the
 * conversation's previous one). The migration tests fill a database with it.
 */
export async function extract(store: Store, conversation: string, seq: number, messageId: string): Promise<void> {
  const span = {
    startSeq: seq,
    endSeq: seq,
    messageIds: [messageId],
    startTime: AT,
    endTime: AT,
    reason: 'flush' as const,
  };
  const memories = ['u1', 'u2'].map((userId) => ({ userId, title: '', content: `${conversation} ${seq} ${userId}` }));
  await extractEpisode(store, conversation, span, memories, ['u1']);
  const summary = await claimSummary(store, { conversationId: conversation, startSequence: 0, endSequence: seq });
  assert.ok(summary && (await startSummary(store, summary)) !== 'superseded');
  assert.ok(await completeSummary(store, summary.memory_id, `summary of ${conversation} to ${seq}`, 1));
}
