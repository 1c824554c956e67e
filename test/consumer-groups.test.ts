import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consumerGroupIdsOf } from '@memstream/config';
import { consumerGroup, consumerGroupsByTopic, consumerGroupsOf } from '@memstream/schemas';

// A group's committed offsets live under its name: renaming one would make its service read its
// topic again from the start (or skip what arrived while it was down), so the names are pinned.
test('the consumer groups keep the names running deployments committed offsets under', () => {
  assert.deepEqual(consumerGroupsByTopic(consumerGroupIdsOf({})), {
    groupChatInput: ['memstream-converter'],
    arkMessages: ['memstream-converter.ark'],
    conversationInput: ['memstream-converter.conversations'],
    messagesStored: ['memstream-indexer', 'memstream-extractor', 'memstream-summarizer'],
    memoriesExtracted: ['memstream-indexer.memories'],
    // Moved from the converter's 'memstream-converter.erasures' with the governance worker: the new
    // group reads the topic from its start once, and each event names a job whose row says it is done.
    erasures: ['memstream-governance'],
  });
});

test("a group follows its service's group id setting, and a service not set reads in no group", () => {
  assert.equal(consumerGroup('arkMessages', 'converter', 'team-a-converter'), 'team-a-converter.ark');
  assert.deepEqual(consumerGroupsOf('messagesStored', { INDEXER_GROUP_ID: 'ix' }), ['ix']);
  assert.deepEqual(consumerGroupsOf('memoriesExtracted', { CONVERTER_GROUP_ID: 'cv' }), []);
});
