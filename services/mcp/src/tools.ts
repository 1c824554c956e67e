import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAccepted, MemstreamError, type MemstreamClient } from '@memstream/client';
import { conversationText, listConversations } from './conversations.js';

const NewMessage = z.object({
  content: z.string().describe('What was said'),
  sender: z.string().min(1).describe('Who said it (a user id, or the assistant)'),
  timestamp: z.string().optional().describe('ISO 8601; now when left out'),
  message_id: z
    .string()
    .min(1)
    .optional()
    .describe('Your id for the message; a message id already stored in the conversation is not stored again'),
});
type NewMessage = z.infer<typeof NewMessage>;

const AddMemory = {
  conversation_id: z
    .string()
    .min(1)
    .describe('The conversation (a group id, a session id: one id space across memstream)'),
  content: z.string().optional().describe('One message to remember (with sender)'),
  sender: z.string().min(1).optional(),
  timestamp: z.string().optional().describe('ISO 8601; now when left out'),
  message_id: z.string().min(1).optional(),
  messages: z
    .array(NewMessage)
    .min(1)
    .max(500)
    .optional()
    .describe('Several messages at once, in order (instead of content and sender)'),
};

/** A tool's answer: a line for the model, and the same facts as structured content for programs. */
function answer(text: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

/**
 * A refusal the model can act on (not found, bad argument, no access) is a tool result with
 * isError, in the family's words; anything else (the server unreachable) stays an error.
 */
async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof MemstreamError)) throw err;
    return {
      isError: true,
      content: [{ type: 'text', text: `memstream answered ${err.status || err.code} ${err.code}: ${err.message}` }],
    };
  }
}

/** The memory tools, each a thin mapping onto one or two client calls made as the client's caller. */
export function registerTools(server: McpServer, client: MemstreamClient): void {
  server.registerTool(
    'add_memory',
    {
      title: 'Remember messages',
      description:
        'Store one message (content and sender) or a batch (messages) in a conversation. Answers once stored, and from then on search finds it by its words (its vector follows moments later).',
      inputSchema: AddMemory,
    },
    async (args) =>
      guarded(async () => {
        const batch: NewMessage[] =
          args.messages ??
          (args.content !== undefined && args.sender
            ? [{ content: args.content, sender: args.sender, timestamp: args.timestamp, message_id: args.message_id }]
            : []);
        if (batch.length === 0)
          return { isError: true, content: [{ type: 'text', text: 'give content and sender, or messages' }] };
        const stored: { message_id: string; duplicate: boolean; request_id: string }[] = [];
        // One after another: a conversation's messages keep the order they were given in.
        for (const m of batch) {
          const messageId = m.message_id ?? `mcp_${globalThis.crypto.randomUUID()}`;
          const written = await client.evermemos.write({
            group_id: args.conversation_id,
            message_id: messageId,
            sender: m.sender,
            content: m.content,
            create_time: m.timestamp ?? new Date().toISOString(),
          });
          stored.push(
            isAccepted(written)
              ? { message_id: messageId, duplicate: false, request_id: written.request_id }
              : { message_id: messageId, duplicate: written.result.duplicate, request_id: written.result.request_id },
          );
        }
        return answer(
          `Stored ${stored.filter((s) => !s.duplicate).length} of ${stored.length} messages in ${args.conversation_id}`,
          { conversation_id: args.conversation_id, stored },
        );
      }),
  );

  server.registerTool(
    'search_memory',
    {
      title: 'Search memory',
      description:
        'Find messages and episodic memories relevant to a query (hybrid keyword and vector search), best first, across the conversations you may read or in one.',
      inputSchema: {
        query: z.string().min(1),
        conversation_id: z.string().min(1).optional(),
        top_k: z.number().int().min(1).max(100).optional(),
      },
    },
    async (args) =>
      guarded(async () => {
        const found = await client.evermemos.search({
          query: args.query,
          group_id: args.conversation_id,
          top_k: args.top_k ?? 10,
        });
        const hits = found.result.memories.map((h) => ({
          id: h.id,
          conversation_id: h.group_id,
          memory_type: h.memory_type,
          score: h.score,
          timestamp: h.timestamp,
          content: h.content,
        }));
        const lines = hits.map((h) => `${h.score.toFixed(3)} [${h.conversation_id} ${h.timestamp}] ${h.content}`);
        return answer(hits.length === 0 ? 'Nothing found' : lines.join('\n'), { hits });
      }),
  );

  server.registerTool(
    'get_context',
    {
      title: 'Conversation context',
      description:
        'What to know before answering in a conversation: its rolling summary and every message after it, as one prompt-ready text.',
      inputSchema: { conversation_id: z.string().min(1) },
    },
    async (args) =>
      guarded(async () => {
        const text = await client.memoryAgent.contextText(args.conversation_id);
        return answer(text, { conversation_id: args.conversation_id, context: text });
      }),
  );

  server.registerTool(
    'list_conversations',
    {
      title: 'List conversations',
      description: 'The conversations you have, most recently active first.',
      inputSchema: { limit: z.number().int().min(1).max(200).optional() },
    },
    async (args) =>
      guarded(async () => {
        const conversations = await listConversations(client, args.limit ?? 50);
        const lines = conversations.map(
          (c) => `${c.conversation_id}${c.title ? ` "${c.title}"` : ''} (last message ${c.last_message_at ?? 'none'})`,
        );
        return answer(lines.length === 0 ? 'No conversations' : lines.join('\n'), { conversations });
      }),
  );

  server.registerTool(
    'get_conversation',
    {
      title: 'Read a conversation',
      description: "A conversation's latest messages, oldest first.",
      inputSchema: { conversation_id: z.string().min(1), limit: z.number().int().min(1).max(500).optional() },
    },
    async (args) =>
      guarded(async () => {
        const { text, messages, total } = await conversationText(client, args.conversation_id, args.limit ?? 100);
        if (total === 0)
          return {
            isError: true,
            content: [{ type: 'text', text: `No conversation ${args.conversation_id} (or no messages you may read)` }],
          };
        return answer(text, { conversation_id: args.conversation_id, total, messages });
      }),
  );

  server.registerTool(
    'delete_memory',
    {
      title: 'Forget',
      description:
        'Forget messages, and the memories made from them: one message (conversation_id and message_id), what one sender said, or a whole conversation.',
      inputSchema: {
        conversation_id: z.string().min(1).optional(),
        message_id: z.string().min(1).optional(),
        sender: z.string().min(1).optional(),
      },
      annotations: { destructiveHint: true },
    },
    async (args) =>
      guarded(async () => {
        if (!args.conversation_id && !args.message_id && !args.sender)
          return { isError: true, content: [{ type: 'text', text: 'give conversation_id, message_id or sender' }] };
        const { result } = await client.evermemos.delete({
          group_id: args.conversation_id,
          message_id: args.message_id,
          user_id: args.sender,
        });
        return answer(`Forgot ${result.deleted_messages} messages and ${result.deleted_memories} memories`, {
          ...result,
        });
      }),
  );
}
