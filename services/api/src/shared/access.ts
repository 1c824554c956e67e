import type { FastifyRequest } from 'fastify';
import { audiencesOf, isRestricted } from '@memstream/auth';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { accessDecision, type AccessLevel } from '@memstream/schemas';
import { accessLevelOf, type Queryable } from '@memstream/store';

/**
 * How the read API applies conversation access, in every family alike:
 * - agents (API keys) and the local user (no authentication) reach every conversation;
 * - a person reaches the conversations whose group they are a member of. To them, a conversation
 *   they are not a member of does not exist: the same 404 as an unknown id, and listings and
 *   searches leave it out. A member whose level is too low for a change gets 403, and so does a
 *   write to an id someone else holds (writing to an unused id creates it, so that answer tells
 *   whether an id is taken however it is worded);
 * - what is for agents only (memory-service's `visibility: agent` and each agent's memory channel)
 *   is left out of every read of a caller who may not see it, in every family: see audiencesFor;
 * - a private chat (`private:<person>`) is its person's, whoever wrote it (the store's rule).
 */

/** The person a listing or search is limited to; undefined when the caller reaches everything. */
export function personOf(request: FastifyRequest): string | undefined {
  const principal = principalOf(request);
  return isRestricted(principal) ? principal.userId : undefined;
}

/** The agent-only content the caller may read, for the store's queries (see audiencesOf). */
export function audiencesFor(request: FastifyRequest): readonly string[] | undefined {
  return audiencesOf(principalOf(request));
}

/** True when the caller may do what `needed` allows on the conversation. */
export async function mayAccess(
  q: Queryable,
  request: FastifyRequest,
  conversationId: string,
  needed: AccessLevel = 'reader',
): Promise<boolean> {
  const person = personOf(request);
  if (person === undefined) return true;
  return accessDecision(await accessLevelOf(q, conversationId, person), needed) === 'allowed';
}

/**
 * Throws unless the caller may do what `needed` allows: `notFound` (the route's own answer for an
 * unknown id) for a non-member, 403 for a member below the level.
 */
export async function requireAccess(
  q: Queryable,
  request: FastifyRequest,
  conversationId: string,
  needed: AccessLevel,
  notFound: () => AppError,
): Promise<void> {
  const person = personOf(request);
  if (person === undefined) return;
  const level = await accessLevelOf(q, conversationId, person);
  const decision = accessDecision(level, needed);
  if (decision === 'not-member') throw notFound();
  if (decision === 'below')
    throw new AppError('FORBIDDEN', `Your access to ${conversationId} is ${level}: this needs ${needed} or more`);
}
