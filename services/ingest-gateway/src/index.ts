export { registerGateway, writeSettingsOf, type GatewayDeps } from './app.js';
