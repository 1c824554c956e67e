export { createMcpServer } from './server.js';
export { createMcpHttpServer } from './http-transport.js';
export { mcpEnv, readConfig, type McpConfig } from './config.js';
