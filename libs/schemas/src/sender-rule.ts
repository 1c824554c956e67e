import type { Actor } from './envelope.js';

/**
 * The sender rule, one for every family: when a person writes, the sender stored is that person.
 * A field that names a sender (EverMemOS `sender`, memory-service `userId`, ARK `name`, a KAOS
 * session's `user_id`) may only name them; a turn that names nobody (an ARK role-only message, a
 * KAOS event) is theirs. Agents relay for anyone: a chat backend posts every member's messages,
 * a KAOS pod writes its user's turns. Events without an actor (the credential-less local user,
 * direct Kafka producers) are trusted like an agent's: with no credentials there is no person to
 * hold them to. Checked at the edge, to answer 403 at once, and again by the converter, where it
 * counts (docs/authentication.md, "sender").
 */

/** Why a person may not write with `named` as the sender, or undefined when they may. */
export function senderRefusal(actor: Actor | undefined, named: unknown, field: string): string | undefined {
  if (actor?.kind !== 'user' || named === undefined || named === null || named === actor.id) return undefined;
  return `${field} must be your own id (${actor.id}) when you write with a person's token; an agent key may write for others`;
}

/** The person speaking, when a person wrote: the sender their turns are stored under, whatever they name. */
export function speakingPerson(actor: Actor | undefined): string | undefined {
  return actor?.kind === 'user' ? actor.id : undefined;
}
