export { registerGateway, type GatewayDeps } from './app.js';
