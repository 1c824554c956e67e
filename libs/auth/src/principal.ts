/**
 * Who is calling. Every request of an API family carries one, decided once at the edge:
 * - `user`: a person, from a verified JWT; `userId` is its `sub`.
 * - `agent`: a service holding an API key (an agent runtime, a chat backend); trusted across users.
 * - `local`: authentication is not configured, so the server listens on loopback only and the one
 *   local user may do everything.
 */
export type Principal =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'agent'; readonly clientId: string }
  | { readonly kind: 'local'; readonly userId: 'local' };

/** The principal of every call when authentication is off. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ kind: 'local', userId: 'local' });

/**
 * True when the principal is bound by per-conversation access rules. Agents act for the service
 * and the local user is the only user there is; only people are limited to what is theirs or
 * shared with them.
 */
export function isRestricted(principal: Principal): principal is { kind: 'user'; userId: string } {
  return principal.kind === 'user';
}

/** A short label for logs and metrics: never a credential, only who it names. */
export function describePrincipal(principal: Principal): string {
  return principal.kind === 'agent' ? `agent:${principal.clientId}` : `user:${principal.userId}`;
}
