import type { MemstreamClient, SearchHit } from '@memstream/client';

export interface Turn {
  readonly said: string;
  readonly reply: string;
}

/**
 * A chat loop with memory: before answering, it recalls what the conversation already holds
 * (the Memory Agent's context: the rolling summary and every message after it) and the past
 * messages most related to the new line (hybrid search); then it stores the line. A real agent
 * would hand both to its model; this one says what it recalled, so it runs without one.
 */
export async function* chat(
  client: MemstreamClient,
  conversationId: string,
  user: string,
  lines: AsyncIterable<string>,
): AsyncGenerator<Turn> {
  let turn = 0;
  for await (const raw of lines) {
    const said = raw.trim();
    if (said === '') continue;
    const known = await recall(client, conversationId, said);
    await client.evermemos.write({
      group_id: conversationId,
      // The conversation and turn make the id, so a write retried after a lost answer is stored once.
      message_id: `${conversationId}-${Date.now()}-${turn++}`,
      create_time: new Date().toISOString(),
      sender: user,
      content: said,
    });
    yield { said, reply: known };
  }
}

async function recall(client: MemstreamClient, conversationId: string, said: string): Promise<string> {
  const context = await client.memoryAgent.context(conversationId).catch(() => undefined);
  if (!context) return 'Nice to meet you. I will remember that.';
  const related: SearchHit[] = (
    await client.evermemos.search({ query: said, group_id: conversationId, top_k: 3, memory_types: ['message'] })
  ).result.memories;
  const earlier = (context.memory ? 1 : 0) + context.gap_messages.length;
  const best = related[0];
  return `I know ${earlier} earlier thing(s) from this conversation${best ? `; the closest: "${best.content}"` : ''}.`;
}
