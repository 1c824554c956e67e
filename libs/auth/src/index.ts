export {
  type Principal,
  LOCAL_PRINCIPAL,
  isRestricted,
  describePrincipal,
  audiencesOf,
  mayReadAudience,
} from './principal.js';
export { ApiKeyRing, type ApiKey } from './api-keys.js';
export { createJwtVerifier, type JwtSettings, type JwtVerifier } from './jwt-verifier.js';
export {
  createAuthenticator,
  authSettingsOf,
  type Authenticator,
  type AuthSettings,
  type CredentialHeaders,
} from './authenticator.js';
