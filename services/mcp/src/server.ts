import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MemstreamClient } from '@memstream/client';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

/** One MCP server whose tools and resources reach memstream as `client`'s caller. */
export function createMcpServer(client: MemstreamClient): McpServer {
  const server = new McpServer({ name: 'memstream', version: '0.1.0' }, { capabilities: { tools: {}, resources: {} } });
  registerTools(server, client);
  registerResources(server, client);
  return server;
}
