export { runApi } from './run-api.js';
export { registerApi, apiDocsOf, type ApiDeps, type ApiRole } from './register-api.js';
export { apiEnv, apiSettings, apiSettingsOf, type ApiConfig } from './config.js';
export { API_FAMILIES } from './families.js';
export { openApiDeps } from './open-api-deps.js';
