export { createMcpServer } from './server.js';
export { registerMcpRoutes } from './http-transport.js';
export { environmentWithFlags, mcpEnv, readConfig, type McpConfig } from './config.js';
