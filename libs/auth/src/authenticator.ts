import { AppError } from '@memstream/errors';
import { ApiKeyRing, type ApiKey } from './api-keys.js';
import { createJwtVerifier, type JwtSettings } from './jwt-verifier.js';
import { LOCAL_PRINCIPAL, type Principal } from './principal.js';
import { DEFAULT_ROLE_SETTINGS, resolveRoles, type RoleSettings, type RoleSubject } from './roles.js';

export interface AuthSettings extends JwtSettings {
  readonly apiKeys: readonly ApiKey[];
  /** Who is an admin or an auditor; unset: only tokens naming the default roles are. */
  readonly roles?: RoleSettings | undefined;
}

/** The request headers authentication reads (node lower-cases header names). */
export interface CredentialHeaders {
  readonly authorization?: string | string[] | undefined;
  readonly 'x-api-key'?: string | string[] | undefined;
}

export interface Authenticator {
  /** False when nothing is configured: every caller is the local user. */
  readonly enabled: boolean;
  /** The caller, or UNAUTHENTICATED (401) when credentials are missing or do not verify. */
  authenticate(headers: CredentialHeaders): Promise<Principal>;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * One authenticator per process, from its settings. An agent presents `X-API-Key: <key>` (or the
 * key as a bearer token, for clients that only know bearer auth); a user presents a JWT as a bearer
 * token. A bearer value that is a configured key is the agent; anything else must verify as a JWT.
 */
export function createAuthenticator(settings: AuthSettings): Authenticator {
  const keys = new ApiKeyRing(settings.apiKeys);
  const verifyJwt = createJwtVerifier(settings);
  const withRoles = principalWithRoles(settings.roles ?? DEFAULT_ROLE_SETTINGS);
  if (keys.size === 0 && !verifyJwt) {
    return { enabled: false, authenticate: async () => LOCAL_PRINCIPAL };
  }
  return {
    enabled: true,
    async authenticate(headers) {
      const apiKey = single(headers['x-api-key']);
      const authorization = single(headers.authorization);
      if (apiKey !== undefined) {
        const clientId = keys.clientOf(apiKey);
        if (clientId === undefined) throw new AppError('UNAUTHENTICATED', 'The API key is not valid');
        const person = await personBeside(clientId, authorization);
        return withRoles(
          person === undefined ? { kind: 'agent', clientId } : { kind: 'agent', clientId, onBehalfOf: person },
        );
      }
      if (authorization === undefined)
        throw new AppError('UNAUTHENTICATED', 'Credentials required: a bearer token or an X-API-Key header');
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined)
        throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
      const clientId = keys.clientOf(token);
      if (clientId !== undefined) return withRoles({ kind: 'agent', clientId });
      if (!verifyJwt) throw new AppError('UNAUTHENTICATED', 'The API key is not valid');
      const verified = await verifyJwt(token);
      return withRoles({ kind: 'user', userId: verified.subject, tokenRoles: verified.roles });
    },
  };

  /**
   * A person's bearer token sent beside an agent's key (the memory-service's agents send both):
   * the person the agent acts for. A token that does not verify is refused rather than dropped,
   * so nobody is taken to act for a person they could not prove; without a JWT setting no person
   * can be verified and the header is left aside, as before.
   */
  async function personBeside(clientId: string, authorization: string | undefined): Promise<string | undefined> {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined || !verifyJwt) return undefined;
    const bearerClient = keys.clientOf(token);
    if (bearerClient !== undefined) {
      if (bearerClient !== clientId) throw new AppError('UNAUTHENTICATED', 'Two different API keys were sent');
      return undefined;
    }
    return (await verifyJwt(token)).subject;
  }
}

/** The principal of a subject, carrying its roles only when it holds any. */
function principalWithRoles(settings: RoleSettings): (subject: RoleSubject) => Principal {
  return (subject) => {
    const roles = resolveRoles(subject, settings);
    const principal: Principal =
      subject.kind === 'user'
        ? { kind: 'user', userId: subject.userId }
        : subject.onBehalfOf === undefined
          ? { kind: 'agent', clientId: subject.clientId }
          : { kind: 'agent', clientId: subject.clientId, onBehalfOf: subject.onBehalfOf };
    return roles.length === 0 ? principal : { ...principal, roles };
  };
}

/** A header sent twice is ambiguous about who is calling: refused like a missing one. */
function single(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : '';
  return value;
}

/** The settings of a process's configuration (the AUTH_* variables, parsed). */
export function authSettingsOf(config: {
  AUTH_JWT_SECRET?: string | undefined;
  AUTH_JWKS_URL?: string | undefined;
  AUTH_JWT_ISSUER?: string | undefined;
  AUTH_JWT_AUDIENCE?: string | undefined;
  AUTH_API_KEYS: readonly ApiKey[];
  AUTH_ADMIN_ROLE?: string | undefined;
  AUTH_AUDITOR_ROLE?: string | undefined;
  AUTH_ADMIN_USERS?: readonly string[] | undefined;
  AUTH_AUDITOR_USERS?: readonly string[] | undefined;
  AUTH_ADMIN_CLIENTS?: readonly string[] | undefined;
  AUTH_AUDITOR_CLIENTS?: readonly string[] | undefined;
}): AuthSettings {
  const d = DEFAULT_ROLE_SETTINGS;
  return {
    roles: {
      adminRole: config.AUTH_ADMIN_ROLE ?? d.adminRole,
      auditorRole: config.AUTH_AUDITOR_ROLE ?? d.auditorRole,
      adminUsers: config.AUTH_ADMIN_USERS ?? d.adminUsers,
      auditorUsers: config.AUTH_AUDITOR_USERS ?? d.auditorUsers,
      adminClients: config.AUTH_ADMIN_CLIENTS ?? d.adminClients,
      auditorClients: config.AUTH_AUDITOR_CLIENTS ?? d.auditorClients,
    },
    secret: config.AUTH_JWT_SECRET,
    jwksUrl: config.AUTH_JWKS_URL,
    issuer: config.AUTH_JWT_ISSUER,
    audience: config.AUTH_JWT_AUDIENCE,
    apiKeys: config.AUTH_API_KEYS,
  };
}
