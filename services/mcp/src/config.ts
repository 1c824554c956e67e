import { z } from 'zod';
import { env, loadConfig } from '@memstream/config';

/**
 * The MCP server's settings. Credentials here are the stdio transport's only: over HTTP each MCP
 * request carries its caller's own, which are passed through to memstream.
 */
export const mcpEnv = z.object({
  /** The memstream server (the embedded mode, the read API or the edge). */
  MEMSTREAM_URL: env.string('http://127.0.0.1:8080'),
  /** The ingest gateway, when the distributed mode is reached without its edge proxy. */
  MEMSTREAM_GATEWAY_URL: env.optionalString(),
  MEMSTREAM_TOKEN: env.optionalString(),
  MEMSTREAM_API_KEY: env.optionalString(),
  MEMSTREAM_TIMEOUT_MS: env.int(30_000, 1),
  MCP_TRANSPORT: z.enum(['stdio', 'http']).default('stdio'),
  /** Streamable HTTP: where to listen; loopback unless told otherwise. */
  MCP_HOST: env.string('127.0.0.1'),
  MCP_PORT: env.port(8090),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_MS: env.int(5_000, 100),
  /** Streamable HTTP: the largest request body taken. */
  HTTP_BODY_LIMIT_BYTES: env.int(4 * 1024 * 1024, 1024),
});
export type McpConfig = z.infer<typeof mcpEnv>;

/** The environment with the command-line flags laid over it: `--transport http --port 8090`. */
export function environmentWithFlags(
  argv: readonly string[],
  environment: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (!flag.startsWith('--') || value === undefined)
      throw new Error(`usage: memstream-mcp [--transport stdio|http] [--port N] [--host H] [--url URL] (got ${flag})`);
    const name = {
      '--transport': 'MCP_TRANSPORT',
      '--port': 'MCP_PORT',
      '--host': 'MCP_HOST',
      '--url': 'MEMSTREAM_URL',
    }[flag];
    if (!name) throw new Error(`unknown option ${flag}`);
    flags[name] = value;
    i++;
  }
  return { ...environment, ...flags };
}

/** The settings from the environment and the flags, as the process reads them. */
export function readConfig(argv: readonly string[], environment: Record<string, string | undefined>): McpConfig {
  return loadConfig(mcpEnv, environmentWithFlags(argv, environment));
}
