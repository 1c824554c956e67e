export { registerGateway, gatewayApiDocs, type GatewayDeps } from './app.js';
