import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MemstreamClient, type ClientOptions } from '@memstream/client';
import { createMcpServer } from './server.js';

const NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this server is stateless, POST only' },
  id: null,
} as const;

/**
 * Streamable HTTP at `/mcp`, stateless: every POST gets its own MCP server and its own memstream
 * client holding that request's Authorization or X-API-Key, so callers never share credentials
 * and any replica answers any request. Nothing is kept between requests, so GET (a standalone
 * event stream) and DELETE (ending a session) have nothing to serve: 405, as the SDK's
 * stateless examples answer. The server it is registered on is the platform's (request ids,
 * /health, /metrics, one lifecycle); credentials are not checked here but passed through, so
 * memstream answers each tool call as the caller.
 */
export function registerMcpRoutes(app: FastifyInstance, memstream: Omit<ClientOptions, 'token' | 'apiKey'>): void {
  app.post('/mcp', async (request, reply) => {
    const client = new MemstreamClient({ ...memstream, ...credentialsOf(request.raw) });
    const server = createMcpServer(client);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the answer itself, on the raw response fastify hands over, so the
    // request id fastify's onSend would add is set here.
    reply.raw.setHeader('x-request-id', request.id);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const notAllowed = async (_request: unknown, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send(NOT_ALLOWED);
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

/** The caller's own credentials, passed through unchanged: memstream checks them, not this server. */
function credentialsOf(req: IncomingMessage): Pick<ClientOptions, 'token' | 'apiKey'> {
  const authorization = req.headers['authorization'];
  const apiKey = req.headers['x-api-key'];
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(.+)$/i.exec(authorization)?.[1] : undefined;
  return { ...(bearer ? { token: bearer } : {}), ...(typeof apiKey === 'string' && apiKey !== '' ? { apiKey } : {}) };
}
