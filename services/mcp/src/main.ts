import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MemstreamClient } from '@memstream/client';
import { createHttpServer } from '@memstream/http';
import { runProcess } from '@memstream/runtime';
import { environmentWithFlags, mcpEnv } from './config.js';
import { registerMcpRoutes } from './http-transport.js';
import { createMcpServer } from './server.js';

// Over stdio, stdout carries the protocol: the log goes to stderr (fd 2) in both transports.
await runProcess(
  'mcp',
  mcpEnv,
  environmentWithFlags(process.argv.slice(2), process.env),
  async ({ config, log, lifecycle, metrics }) => {
    const memstream = {
      baseUrl: config.MEMSTREAM_URL,
      timeoutMs: config.MEMSTREAM_TIMEOUT_MS,
      ...(config.MEMSTREAM_GATEWAY_URL ? { gatewayUrl: config.MEMSTREAM_GATEWAY_URL } : {}),
    };
    if (config.MCP_TRANSPORT === 'stdio') {
      const client = new MemstreamClient({
        ...memstream,
        ...(config.MEMSTREAM_TOKEN ? { token: config.MEMSTREAM_TOKEN } : {}),
        ...(config.MEMSTREAM_API_KEY ? { apiKey: config.MEMSTREAM_API_KEY } : {}),
      });
      const server = createMcpServer(client);
      lifecycle.defer('mcp server', () => server.close());
      const transport = new StdioServerTransport();
      // The client closing stdin is the end of the session.
      transport.onclose = () => void lifecycle.shutdown();
      await server.connect(transport);
      log.info({ memstream: config.MEMSTREAM_URL }, 'MCP server on stdio');
      return;
    }
    // The platform's HTTP server: request ids, /health, /metrics and the lifecycle, as every API process has.
    const http = createHttpServer({ log, lifecycle, metrics, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES });
    registerMcpRoutes(http, memstream);
    await http.listen({ port: config.MCP_PORT, host: config.MCP_HOST });
    lifecycle.defer('http', () => http.close());
    const address = http.server.address();
    log.info(
      {
        port: typeof address === 'object' && address ? address.port : config.MCP_PORT,
        host: config.MCP_HOST,
        memstream: config.MEMSTREAM_URL,
      },
      'MCP server on Streamable HTTP at /mcp',
    );
  },
  { logDestination: process.stderr },
);
