export { registerGateway, gatewayApiDocs, type GatewayDeps } from './app.js';
export { gatewayEnv, gatewaySettings, type GatewayConfig } from './config.js';
