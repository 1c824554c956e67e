import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MemstreamClient } from '@memstream/client';
import { createLogger } from '@memstream/logging';
import { Lifecycle } from '@memstream/runtime';
import { readConfig } from './config.js';
import { createMcpHttpServer } from './http-transport.js';
import { createMcpServer } from './server.js';

const config = readConfig(process.argv.slice(2), process.env);
// Over stdio, stdout carries the protocol: the log goes to stderr (fd 2) in both transports.
const log = createLogger({ service: 'mcp', level: config.LOG_LEVEL, destination: process.stderr });
const lifecycle = new Lifecycle({ log, shutdownTimeoutMs: 5000 });
lifecycle.handleSignals();
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
  lifecycle.markReady();
  log.info({ memstream: config.MEMSTREAM_URL }, 'MCP server on stdio');
} else {
  const http = createMcpHttpServer({ memstream, log });
  lifecycle.defer('http server', () => new Promise<void>((resolve) => http.close(() => resolve())));
  await new Promise<void>((resolve) => http.listen(config.MCP_PORT, config.MCP_HOST, resolve));
  lifecycle.markReady();
  const address = http.address();
  log.info(
    {
      port: typeof address === 'object' && address ? address.port : config.MCP_PORT,
      host: config.MCP_HOST,
      memstream: config.MEMSTREAM_URL,
    },
    'MCP server on Streamable HTTP at /mcp',
  );
}
