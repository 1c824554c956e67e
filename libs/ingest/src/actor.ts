import type { Principal } from '@memstream/auth';
import type { Actor } from '@memstream/schemas';

/**
 * The actor a write's event carries, so the converter can hold a person to the conversation's
 * memberships. The local user (no authentication) is left off: such events are unrestricted,
 * like those of direct producers.
 */
export function actorOf(principal: Principal): Actor | undefined {
  if (principal.kind === 'user') return { kind: 'user', id: principal.userId };
  if (principal.kind === 'agent') return { kind: 'agent', id: principal.clientId };
  return undefined;
}
