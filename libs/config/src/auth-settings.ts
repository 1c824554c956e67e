import { z } from 'zod';
import { env } from './load-config.js';

/** One `clientId:key` pair of AUTH_API_KEYS. */
const apiKeyPair = z
  .string()
  .regex(/^[^:\s]+:\S+$/, 'each entry is clientId:key')
  .transform((pair) => {
    const at = pair.indexOf(':');
    return { clientId: pair.slice(0, at), key: pair.slice(at + 1) };
  })
  .refine((k) => k.key.length >= 16, { message: 'each key has at least 16 characters' });

/**
 * Who may call the API processes (gateway, read API, all-in-one). Users bring a JWT (HS256 with
 * the secret, or RS256/ES256 against the JWKS); agents bring an API key. With none of them set,
 * the API serves only the local machine (see listenHostOf).
 */
export const authSettings = {
  /** HS256 secret user tokens are signed with; at least 32 characters (256 bits of a random string). */
  AUTH_JWT_SECRET: env.optionalString().refine((s) => s === undefined || s.length >= 32, 'at least 32 characters'),
  /** The identity provider's JSON Web Key Set, for RS256/ES256 user tokens. */
  AUTH_JWKS_URL: env.optionalString().refine((s) => s === undefined || /^https?:\/\/\S+$/.test(s), 'an http(s) URL'),
  AUTH_JWT_ISSUER: env.optionalString(),
  AUTH_JWT_AUDIENCE: env.optionalString(),
  /** Agents' keys: `clientId:key,clientId2:key2`. */
  AUTH_API_KEYS: env
    .list()
    .pipe(z.array(apiKeyPair))
    .refine((keys) => new Set(keys.map((k) => k.clientId)).size === keys.length, 'a client id appears twice')
    .refine((keys) => new Set(keys.map((k) => k.key)).size === keys.length, 'a key is given to two clients'),
  /**
   * Admins and auditors (the /v1/admin API), as memory-service names them: a token whose `roles`
   * (or Keycloak's `realm_access.roles`) holds the role name, a person listed by id, or an agent
   * listed by client id. Admin implies auditor; auditors only read.
   */
  AUTH_ADMIN_ROLE: env.string('admin'),
  AUTH_AUDITOR_ROLE: env.string('auditor'),
  /** People (token subjects) who are admins: `alice,bob`. */
  AUTH_ADMIN_USERS: env.list(),
  AUTH_AUDITOR_USERS: env.list(),
  /** Agents (client ids of AUTH_API_KEYS) that are admins. */
  AUTH_ADMIN_CLIENTS: env.list(),
  AUTH_AUDITOR_CLIENTS: env.list(),
};

type AuthConfig = {
  AUTH_JWT_SECRET?: string | undefined;
  AUTH_JWKS_URL?: string | undefined;
  AUTH_API_KEYS: readonly unknown[];
};

/** True when callers must present credentials. */
export function authConfigured(config: AuthConfig): boolean {
  return config.AUTH_JWT_SECRET !== undefined || config.AUTH_JWKS_URL !== undefined || config.AUTH_API_KEYS.length > 0;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Where an API process listens: HOST when set, else every interface when callers must
 * authenticate and the loopback interface when they need not, so an unconfigured server never
 * serves its data to the network.
 */
export function listenHostOf(config: AuthConfig & { HOST?: string | undefined }): string {
  return config.HOST ?? (authConfigured(config) ? '0.0.0.0' : '127.0.0.1');
}

/** Refuses an API process that would serve every conversation to the network without credentials. */
export function requireAuthOffLoopback(config: AuthConfig & { HOST?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.HOST !== undefined && !LOOPBACK.has(config.HOST) && !authConfigured(config)) {
    ctx.addIssue({
      code: 'custom',
      path: ['HOST'],
      message: `serving the API on ${config.HOST} needs authentication: set AUTH_JWT_SECRET, AUTH_JWKS_URL or AUTH_API_KEYS (or leave HOST unset to serve this machine only)`,
    });
  }
}
