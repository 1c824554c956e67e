import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '../../../harness/processes.js';

/** An MCP client of the official SDK, closed (and its server process ended) when the test ends. */
async function connected(
  t: TestContext,
  transport: StdioClientTransport | StreamableHTTPClientTransport,
): Promise<Client> {
  const client = new Client({ name: 'memstream-test', version: '0.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/**
 * `memstream-mcp` over stdio, spawned by the SDK's transport with exactly this environment (and
 * the repository's node_modules/.bin on the PATH, as npm runs it); `entry` may be the CLI's
 * main with `mcp`, which starts the same server as its child.
 */
export function stdioClient(
  t: TestContext,
  env: Record<string, string>,
  entry: string[] = ['services/mcp/src/main.ts'],
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', ...entry],
    cwd: REPO_ROOT,
    env: {
      PATH: `${join(REPO_ROOT, 'node_modules/.bin')}${delimiter}${process.env['PATH'] ?? ''}`,
      HOME: process.env['HOME'] ?? '/tmp',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stderr: 'inherit',
  });
  return connected(t, transport);
}

/** The Streamable HTTP endpoint at `mcpUrl`, sending these headers (the caller's credentials) on every request. */
export function httpClient(t: TestContext, mcpUrl: string, headers: Record<string, string>): Promise<Client> {
  return connected(t, new StreamableHTTPClientTransport(new URL(`${mcpUrl}/mcp`), { requestInit: { headers } }));
}
