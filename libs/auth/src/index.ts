export {
  type Principal,
  LOCAL_PRINCIPAL,
  isRestricted,
  describePrincipal,
  audiencesOf,
  mayReadAudience,
  hasRole,
} from './principal.js';
export {
  type Role,
  type RoleSettings,
  type RoleSubject,
  DEFAULT_ROLE_SETTINGS,
  resolveRoles,
  tokenRolesOf,
} from './roles.js';
export { ApiKeyRing, type ApiKey } from './api-keys.js';
export { createJwtVerifier, type JwtSettings, type JwtVerifier, type VerifiedToken } from './jwt-verifier.js';
export {
  createAuthenticator,
  authSettingsOf,
  type Authenticator,
  type AuthSettings,
  type CredentialHeaders,
} from './authenticator.js';
