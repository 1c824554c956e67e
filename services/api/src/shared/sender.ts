import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { principalOf } from '@memstream/http';
import { actorOf } from '@memstream/ingest';
import { senderRefusal } from '@memstream/schemas';

/**
 * The sender rule at the edge, for every family (the rule itself: senderRefusal): a person's
 * write naming someone else as its sender is refused with 403 in the family's error shape, before
 * anything is published. The converter holds events to the same rule, so a write that reached
 * Kafka some other way is refused there too.
 */
export function requireOwnSender(request: FastifyRequest, named: unknown, field: string): void {
  const refused = senderRefusal(actorOf(principalOf(request)), named, field);
  if (refused !== undefined) throw new AppError('FORBIDDEN', refused);
}
