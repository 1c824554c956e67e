/**
 * Roles beyond membership: an `auditor` reads every conversation of every person (and the audit
 * log), an `admin` does that and also deletes, restores and evicts. Admin implies auditor.
 */
export type Role = 'admin' | 'auditor';

/**
 * How a caller comes to hold a role, as memory-service resolves it: a role named in the verified
 * token, a person listed by id, or an agent listed by client id. Any one source is enough.
 */
export interface RoleSettings {
  /** The token role that makes an admin (memory-service's default: `admin`). */
  readonly adminRole: string;
  /** The token role that makes an auditor (default `auditor`). */
  readonly auditorRole: string;
  readonly adminUsers: readonly string[];
  readonly auditorUsers: readonly string[];
  readonly adminClients: readonly string[];
  readonly auditorClients: readonly string[];
}

export const DEFAULT_ROLE_SETTINGS: RoleSettings = Object.freeze({
  adminRole: 'admin',
  auditorRole: 'auditor',
  adminUsers: [],
  auditorUsers: [],
  adminClients: [],
  auditorClients: [],
});

/** Who is asking, before roles: a person with the roles their token names, or an agent. */
export type RoleSubject =
  | { readonly kind: 'user'; readonly userId: string; readonly tokenRoles: readonly string[] }
  | { readonly kind: 'agent'; readonly clientId: string; readonly onBehalfOf?: string };

/** The roles of a caller, admin first; an admin is always an auditor too. */
export function resolveRoles(subject: RoleSubject, settings: RoleSettings): readonly Role[] {
  const admin =
    subject.kind === 'user'
      ? subject.tokenRoles.includes(settings.adminRole) || settings.adminUsers.includes(subject.userId)
      : settings.adminClients.includes(subject.clientId);
  if (admin) return ['admin', 'auditor'];
  const auditor =
    subject.kind === 'user'
      ? subject.tokenRoles.includes(settings.auditorRole) || settings.auditorUsers.includes(subject.userId)
      : settings.auditorClients.includes(subject.clientId);
  return auditor ? ['auditor'] : [];
}

/**
 * The role names a verified token carries: the `roles` claim (a list, or one name), else
 * Keycloak's `realm_access.roles`. Anything that is not a string is ignored, never trusted.
 */
export function tokenRolesOf(claims: Readonly<Record<string, unknown>>): readonly string[] {
  const direct = namesIn(claims['roles']);
  const realm = claims['realm_access'];
  const keycloak =
    realm !== null && typeof realm === 'object' && !Array.isArray(realm)
      ? namesIn((realm as Record<string, unknown>)['roles'])
      : [];
  return [...new Set([...direct, ...keycloak])];
}

function namesIn(value: unknown): string[] {
  if (typeof value === 'string') return value.length > 0 ? [value] : [];
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
}
