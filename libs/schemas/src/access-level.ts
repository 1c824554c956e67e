import { z } from 'zod';

/**
 * A member's level on a conversation group, highest first: the owner (one per group) may delete
 * and transfer; a manager shares and revokes; a writer appends and forks; a reader reads.
 */
export const AccessLevel = z.enum(['owner', 'manager', 'writer', 'reader']);
export type AccessLevel = z.infer<typeof AccessLevel>;

/**
 * The levels a share or a change of level may give: owner passes only by an ownership transfer,
 * so a request naming it is refused by its schema (and the document does not offer it).
 */
export const GrantableLevel = z.enum(['manager', 'writer', 'reader']);

const RANK: Record<AccessLevel, number> = { reader: 0, writer: 1, manager: 2, owner: 3 };

/** True when `held` allows what `needed` allows. */
export function grants(held: AccessLevel, needed: AccessLevel): boolean {
  return RANK[held] >= RANK[needed];
}

/** Every level that allows what `needed` allows. */
export function levelsFrom(needed: AccessLevel): AccessLevel[] {
  return AccessLevel.options.filter((level) => grants(level, needed));
}

/**
 * What a person's membership lets them do on a conversation, the one rule the API's checks and
 * the converter's write gate both apply: `not-member` (no level; the conversation is not theirs
 * to know of), `below` (a member whose level is too low) or `allowed`. Agents and servers without
 * authentication are not persons and never reach this rule.
 */
export type AccessDecision = 'allowed' | 'not-member' | 'below';

export function accessDecision(held: AccessLevel | undefined, needed: AccessLevel): AccessDecision {
  if (held === undefined) return 'not-member';
  return grants(held, needed) ? 'allowed' : 'below';
}
