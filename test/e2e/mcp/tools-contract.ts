import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { waitFor } from '../../helpers/infra.js';

export const TOOLS = [
  'add_memory',
  'delete_memory',
  'get_context',
  'get_conversation',
  'list_conversations',
  'search_memory',
];

interface ToolAnswer {
  readonly isError?: boolean;
  readonly text: string;
  readonly data: Record<string, unknown>;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return {
    isError: result.isError === true,
    text: content.map((c) => c.text ?? '').join('\n'),
    data: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

/** Lists the tools and calls each against the real server, then reads the conversation as a resource. */
export async function checkTools(client: Client, label: string): Promise<void> {
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), TOOLS);
  const conversation = `mcp_${label}`;

  const one = await call(client, 'add_memory', {
    conversation_id: conversation,
    content: 'The offsite is in Lisbon on Friday.',
    sender: 'ana',
    timestamp: '2025-01-15T10:00:00Z',
    message_id: 'm1',
  });
  assert.equal(one.isError, false, one.text);
  const batch = await call(client, 'add_memory', {
    conversation_id: conversation,
    messages: [
      { content: 'I will book the train.', sender: 'bo', timestamp: '2025-01-15T10:01:00Z' },
      { content: 'Bring the slides.', sender: 'ana', timestamp: '2025-01-15T10:02:00Z' },
    ],
  });
  assert.equal((batch.data['stored'] as unknown[]).length, 2);
  const again = await call(client, 'add_memory', {
    conversation_id: conversation,
    content: 'The offsite is in Lisbon on Friday.',
    sender: 'ana',
    message_id: 'm1',
  });
  assert.deepEqual(
    (again.data['stored'] as { duplicate: boolean }[]).map((s) => s.duplicate),
    [true],
  );

  const hits = await waitFor('the message searchable', async () => {
    const found = await call(client, 'search_memory', {
      query: 'Lisbon offsite',
      conversation_id: conversation,
      top_k: 3,
    });
    return (found.data['hits'] as { id: string }[]).some((h) => h.id === 'm1') ? found : undefined;
  });
  assert.match(hits.text, /Lisbon/);

  assert.match((await call(client, 'get_context', { conversation_id: conversation })).text, /Lisbon/);
  const listed = await call(client, 'list_conversations', {});
  assert.ok(
    (listed.data['conversations'] as { conversation_id: string }[]).some((c) => c.conversation_id === conversation),
    listed.text,
  );
  const read = await call(client, 'get_conversation', { conversation_id: conversation });
  assert.equal(read.data['total'], 3);
  assert.match(read.text, /ana \(m1\): The offsite is in Lisbon/);

  const uri = `memstream://conversations/${conversation}`;
  assert.ok((await client.listResources()).resources.some((r) => r.uri === uri));
  const resource = await client.readResource({ uri });
  assert.match(String((resource.contents[0] as { text?: string }).text), /Bring the slides/);

  const forgotOne = await call(client, 'delete_memory', { conversation_id: conversation, message_id: 'm1' });
  assert.equal(forgotOne.data['deleted_messages'], 1);
  assert.equal((await call(client, 'delete_memory', { conversation_id: conversation })).data['deleted_messages'], 2);
  assert.equal((await call(client, 'get_conversation', { conversation_id: conversation })).isError, true);
}

/** Without credentials a server with authentication refuses every tool, and the tool says so. */
export async function checkRefused(client: Client): Promise<void> {
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), TOOLS);
  const calls: [string, Record<string, unknown>][] = [
    ['add_memory', { conversation_id: 'mcp_refused', content: 'x', sender: 'a' }],
    ['search_memory', { query: 'x' }],
    ['get_context', { conversation_id: 'mcp_refused' }],
    ['list_conversations', {}],
    ['get_conversation', { conversation_id: 'mcp_refused' }],
    ['delete_memory', { conversation_id: 'mcp_refused' }],
  ];
  for (const [name, args] of calls) {
    const answer = await call(client, name, args);
    assert.equal(answer.isError, true, name);
    assert.match(answer.text, /401 UNAUTHENTICATED/, name);
  }
}
