import { grants, type AccessLevel } from './access-level.js';
import type { TransferRecipients } from './conversation-events.js';

/**
 * Who may change what in a conversation group: one set of rules, applied by the read API before
 * it publishes a write (to answer at once) and by the converter when it applies it (the answer
 * that counts, since memberships may have changed in between).
 *
 * A caller's standing is their level in the group, `unrestricted` for an agent key or the local
 * user, or undefined for a person who is not a member (to whom the conversation does not exist).
 * Stricter than the memory-service of January 2026: a manager never passes an owner-only check,
 * nobody grants more than their own level or grants ownership (only a transfer does), and the
 * owner cannot be revoked or demoted.
 */
export type Standing = AccessLevel | 'unrestricted' | undefined;

export interface Refusal {
  readonly code: 'RESOURCE_NOT_FOUND' | 'FORBIDDEN' | 'INVALID_PARAMETER' | 'CONFLICT';
  readonly message: string;
}

const notFound: Refusal = { code: 'RESOURCE_NOT_FOUND', message: 'Conversation not found' };

/**
 * Access or ownership offered to a person whose erasure is open: refused until it ends, so nobody
 * else adds to what is being erased (docs/your-users-data.md). It names no one: a recorded outcome
 * naming the person would be one more row about them.
 */
export const UNDER_ERASURE: Refusal = {
  code: 'CONFLICT',
  message: 'That person is being erased: no access or ownership can be given to them until the erasure ends',
};

/** Undefined when the standing allows what `needed` allows. */
export function levelRefusal(standing: Standing, needed: AccessLevel, action: string): Refusal | undefined {
  if (standing === 'unrestricted') return undefined;
  if (standing === undefined) return notFound;
  if (grants(standing, needed)) return undefined;
  return { code: 'FORBIDDEN', message: `${action} needs ${needed} access; yours is ${standing}` };
}

/** Granting `level` to someone who is not a member yet. */
export function shareRefusal(
  standing: Standing,
  level: AccessLevel,
  targetLevel: AccessLevel | undefined,
): Refusal | undefined {
  const refused = levelRefusal(standing, 'manager', 'Sharing');
  if (refused) return refused;
  if (level === 'owner')
    return { code: 'INVALID_PARAMETER', message: 'accessLevel owner is given only by an ownership transfer' };
  if (standing !== 'unrestricted' && !grants(standing!, level))
    return { code: 'FORBIDDEN', message: `You may grant at most ${standing} access` };
  if (targetLevel !== undefined)
    return { code: 'CONFLICT', message: 'The user is already a member: change their level instead' };
  return undefined;
}

/** Changing a member's level from `targetLevel` to `level`. */
export function updateRefusal(
  standing: Standing,
  level: AccessLevel,
  targetLevel: AccessLevel | undefined,
): Refusal | undefined {
  const refused = levelRefusal(standing, 'manager', 'Changing access');
  if (refused) return refused;
  if (targetLevel === undefined) return { code: 'RESOURCE_NOT_FOUND', message: 'Membership not found' };
  if (level === 'owner')
    return { code: 'INVALID_PARAMETER', message: 'accessLevel owner is given only by an ownership transfer' };
  if (targetLevel === 'owner')
    return { code: 'FORBIDDEN', message: "The owner's access changes only by an ownership transfer" };
  if (standing !== 'unrestricted' && (!grants(standing!, level) || !grants(standing!, targetLevel))) {
    return {
      code: 'FORBIDDEN',
      message: `You may change only members at or below ${standing}, to at most ${standing}`,
    };
  }
  return undefined;
}

/** Removing a member; anyone but the owner may leave on their own. */
export function revokeRefusal(
  standing: Standing,
  targetLevel: AccessLevel | undefined,
  self: boolean,
): Refusal | undefined {
  if (standing === undefined) return notFound;
  if (targetLevel === undefined)
    return standing === 'unrestricted' || grants(standing, 'manager')
      ? { code: 'RESOURCE_NOT_FOUND', message: 'Membership not found' }
      : levelRefusal(standing, 'manager', 'Revoking access');
  if (targetLevel === 'owner')
    return { code: 'FORBIDDEN', message: 'The owner cannot be removed; transfer ownership first' };
  if (self) return undefined;
  const refused = levelRefusal(standing, 'manager', 'Revoking access');
  if (refused) return refused;
  if (standing !== 'unrestricted' && !grants(standing, targetLevel))
    return { code: 'FORBIDDEN', message: `You may remove only members at or below ${standing}` };
  return undefined;
}

/**
 * Asking to hand the group to `newOwner`, whose level is `newOwnerLevel`. Under `members` (the
 * memory-service's `/v1/ownership-transfers`) only a member is offered the group, so an offer ends
 * with its recipient's membership; under `anyone` (its earlier `/{id}/transfer-ownership`) a person
 * who is not a member may be offered it too, and sees nothing of the conversation but the offer
 * until they accept it.
 */
export function transferRefusal(
  standing: Standing,
  newOwner: string,
  currentOwner: string | null,
  newOwnerLevel: AccessLevel | undefined,
  recipients: TransferRecipients,
): Refusal | undefined {
  const refused = levelRefusal(standing, 'owner', 'Transferring ownership');
  if (refused) return refused;
  if (newOwner === currentOwner)
    return { code: 'INVALID_PARAMETER', message: 'newOwnerUserId already owns the conversation' };
  if (newOwnerLevel === undefined && recipients === 'members')
    return { code: 'INVALID_PARAMETER', message: 'newOwnerUserId must be a member of the conversation' };
  return undefined;
}

/** Ending a pending transfer untaken: its recipient declines it, or the owner (or an agent) withdraws it. */
export function withdrawRefusal(standing: Standing, isRecipient: boolean): Refusal | undefined {
  if (isRecipient || standing === 'unrestricted' || standing === 'owner') return undefined;
  return { code: 'FORBIDDEN', message: 'Only the owner or the recipient may end an ownership transfer' };
}
