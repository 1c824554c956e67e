import { spawn } from 'node:child_process';
import type { Io } from './import-command.js';

/**
 * `memstream mcp [options]`: runs the MCP server, `memstream-mcp` (the services/mcp package's
 * executable), as a child with this process's standard streams, so over stdio the MCP client
 * talks to it directly. A child process rather than an import: services never import each other,
 * and the MCP server ships on its own as well. npm puts it on the PATH (`npm run memstream -- mcp`,
 * or both packages installed).
 */
export function runMcp(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('memstream-mcp', [...args], { stdio: 'inherit', env: { ...env } });
    child.once('error', (err: NodeJS.ErrnoException) => {
      io.stderr.write(
        err.code === 'ENOENT'
          ? 'memstream: memstream-mcp is not on the PATH (run `npm run memstream -- mcp` in the repository, or install @memstream/mcp)\n'
          : `memstream: ${err.message}\n`,
      );
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
