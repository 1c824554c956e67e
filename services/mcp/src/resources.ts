import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MemstreamClient } from '@memstream/client';
import { conversationText, listConversations } from './conversations.js';

const PREFIX = 'memstream://conversations/';

/** Every conversation the caller has is a resource: its latest messages as text. */
export function registerResources(server: McpServer, client: MemstreamClient): void {
  const template = new ResourceTemplate(`${PREFIX}{conversation_id}`, {
    list: async () => ({
      resources: (await listConversations(client, 200)).map((c) => ({
        uri: `${PREFIX}${encodeURIComponent(c.conversation_id)}`,
        name: c.title ?? c.conversation_id,
        mimeType: 'text/plain',
      })),
    }),
  });
  server.registerResource(
    'conversation',
    template,
    { title: 'A conversation', description: 'Its latest messages, oldest first', mimeType: 'text/plain' },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables['conversation_id']));
      const { text } = await conversationText(client, id, 200);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text }] };
    },
  );
}
