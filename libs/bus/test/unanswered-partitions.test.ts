import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners, type Message, type RecordMetadata } from 'kafkajs';
import { PartitionWitness } from '../src/unanswered-partitions.js';

const partitionMetadata = [0, 1, 2, 3].map((partitionId) => ({
  partitionId,
  leader: partitionId % 3,
  partitionErrorCode: 0,
  replicas: [0, 1, 2],
  isr: [0, 1, 2],
}));

const answer = (topicName: string, partition: number): RecordMetadata => ({
  topicName,
  partition,
  errorCode: 0,
  baseOffset: '0',
});

// kafkajs retried a send after one leader died, and the partitions that moved to a broker that
// had answered already were never sent: the answer lacks them, and so their records come back.
test('the records of a partition the send did not answer for are sent again, the answered ones not', () => {
  const witness = new PartitionWitness();
  const partitioner = witness.createPartitioner();
  const messages: Message[] = Array.from({ length: 40 }, (_, i) => ({ key: `conversation-${i}`, value: `m${i}` }));
  const chosen = messages.map((message) => partitioner({ topic: 't', partitionMetadata, message }));
  assert.equal(new Set(chosen).size, 4, 'the keys spread over every partition');
  const sent = [{ topic: 't', messages }];
  assert.deepEqual(
    witness.unanswered(
      sent,
      [0, 1, 2, 3].map((p) => answer('t', p)),
    ),
    [],
  );

  const again = witness.unanswered(
    sent,
    [0, 1, 3].map((p) => answer('t', p)),
  );
  assert.deepEqual(
    again.flatMap((t) => t.messages.map((m) => m.value)),
    messages.filter((_, i) => chosen[i] === 2).map((m) => m.value),
    'exactly the records of partition 2, in their order',
  );
  assert.deepEqual(
    witness.unanswered(sent, [answer('other', 2), answer('t', 0), answer('t', 1), answer('t', 3)]).length,
    1,
  );
});

test("watching changes no record's partition: keys land where kafkajs's default partitioner puts them", () => {
  const watched = new PartitionWitness().createPartitioner();
  const plain = Partitioners.DefaultPartitioner();
  for (let i = 0; i < 200; i++) {
    const message = { key: `group-${i}`, value: 'x' };
    assert.equal(
      watched({ topic: 't', partitionMetadata, message }),
      plain({ topic: 't', partitionMetadata, message }),
    );
  }
});
