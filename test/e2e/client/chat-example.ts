import assert from 'node:assert/strict';
import type { MemstreamClient } from '@memstream/client';
import { chat, type Turn } from '../../../examples/chat-loop/chat.js';
import { waitFor } from '../../helpers/infra.js';

async function* linesOf(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

/** The chat-loop example stores every line and recalls what came before it. */
export async function checkChatExample(client: MemstreamClient, label: string): Promise<void> {
  const conversation = `chat_example_${label}`;
  const turns: Turn[] = [];
  for await (const turn of chat(
    client,
    conversation,
    'ana',
    linesOf(['My sister lives in Porto.', '', 'I like trains.', 'Where does my sister live?']),
  ))
    turns.push(turn);
  assert.deepEqual(
    turns.map((t) => t.said),
    ['My sister lives in Porto.', 'I like trains.', 'Where does my sister live?'],
  );
  assert.match(turns[0]!.reply, /Nice to meet you/);
  assert.match(turns[2]!.reply, /^I know 2 earlier/);
  assert.equal((await client.evermemos.list({ group_id: conversation })).result.total_count, 3);
  // Search finds what the indexer has reached: once it has the three lines, a question recalls the
  // one it is about (search shows a message with its speaker in front).
  await waitFor(
    'the three lines indexed',
    async () => (await client.evermemos.memoryStats(conversation)).result['indexed_messages'] === 3,
  );
  const question = await chat(client, conversation, 'ana', linesOf(['Porto'])).next();
  assert.match(
    question.value ? question.value.reply : '',
    /^I know 3 earlier thing\(s\) from this conversation; the closest: "(ana: )?My sister lives in Porto\."/,
  );
  await client.evermemos.delete({ group_id: conversation });
}
