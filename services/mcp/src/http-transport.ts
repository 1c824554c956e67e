import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MemstreamClient, type ClientOptions } from '@memstream/client';
import type { Logger } from '@memstream/logging';
import { createMcpServer } from './server.js';

/**
 * Streamable HTTP at `/mcp`, stateless: every POST gets its own MCP server and its own memstream
 * client holding that request's Authorization or X-API-Key, so callers never share credentials
 * and any replica answers any request. Nothing is kept between requests, so GET (a standalone
 * event stream) and DELETE (ending a session) have nothing to serve: 405, as the SDK's
 * stateless examples answer.
 */
export function createMcpHttpServer(options: {
  memstream: Omit<ClientOptions, 'token' | 'apiKey'>;
  log: Logger;
}): Server {
  return createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) => {
      options.log.error({ err }, 'MCP request failed');
      if (!res.headersSent)
        reply(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: { memstream: Omit<ClientOptions, 'token' | 'apiKey'> },
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/health') return reply(res, 200, { status: 'ok' });
  if (path !== '/mcp') return reply(res, 404, { error: 'not found: the MCP endpoint is /mcp' });
  if (req.method !== 'POST')
    return reply(res, 405, {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless, POST only' },
      id: null,
    });

  const client = new MemstreamClient({ ...options.memstream, ...credentialsOf(req) });
  const server = createMcpServer(client);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** The caller's own credentials, passed through unchanged: memstream checks them, not this server. */
function credentialsOf(req: IncomingMessage): Pick<ClientOptions, 'token' | 'apiKey'> {
  const authorization = req.headers['authorization'];
  const apiKey = req.headers['x-api-key'];
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(.+)$/i.exec(authorization)?.[1] : undefined;
  return { ...(bearer ? { token: bearer } : {}), ...(typeof apiKey === 'string' && apiKey !== '' ? { apiKey } : {}) };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
