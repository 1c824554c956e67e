export { registerReadApi, readApiSettingsOf, readApiDocs, type ReadApiDeps } from './read-api.js';
export { readApiEnv, readApiSettings, type ReadApiConfig } from './config.js';
export { registerGateway, gatewayApiDocs, type GatewayDeps } from './gateway.js';
export { gatewayEnv, gatewaySettings, type GatewayConfig } from './gateway-config.js';
export { API_FAMILIES } from './families.js';
