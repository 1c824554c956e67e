import type { Role } from './roles.js';

/**
 * Who is calling. Every request of an API family carries one, decided once at the edge:
 * - `user`: a person, from a verified JWT; `userId` is its `sub`.
 * - `agent`: a service holding an API key (an agent runtime, a chat backend); trusted across users.
 *   With a person's token beside the key, `onBehalfOf` names that person.
 * - `local`: authentication is not configured, so the server listens on loopback only and the one
 *   local user may do everything.
 * `roles` (see resolveRoles) is present only when the caller holds one, so a plain caller is
 * described exactly as before roles existed.
 */
export type Principal =
  | { readonly kind: 'user'; readonly userId: string; readonly roles?: readonly Role[] }
  | {
      readonly kind: 'agent';
      readonly clientId: string;
      /**
       * The person the agent acts for, when it also sent that person's verified token (as the
       * memory-service's agents always do). It narrows only what the agent asks as that person
       * (the memory-service search); the key's own rights are unchanged.
       */
      readonly onBehalfOf?: string;
      readonly roles?: readonly Role[];
    }
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

/**
 * What agent-only content the principal may read, as the store's `audience` values name it
 * (migration 0012): a person none (an empty list), an agent what is for every agent and its own
 * working memory, the local user everything (undefined: no filter). Every family's reads and
 * streams pass this to the store, so one rule holds wherever a message is read.
 */
export function audiencesOf(principal: Principal): readonly string[] | undefined {
  if (principal.kind === 'user') return [];
  if (principal.kind === 'agent') return ['agents', `agent:${principal.clientId}`];
  return undefined;
}

/**
 * Whether a reader with `audiences` (audiencesOf) may see content labelled `audience`: the rule
 * the store's audienceIn applies in SQL, for what is read outside the store (live events).
 */
export function mayReadAudience(
  audiences: readonly string[] | undefined,
  audience: string | null | undefined,
): boolean {
  return audience == null || audiences === undefined || audiences.includes(audience);
}

/**
 * Whether the principal holds the role. The local user (authentication off, loopback only) is the
 * machine's operator and holds every role, as it may already do everything else.
 */
export function hasRole(principal: Principal, role: Role): boolean {
  if (principal.kind === 'local') return true;
  return principal.roles?.includes(role) ?? false;
}
