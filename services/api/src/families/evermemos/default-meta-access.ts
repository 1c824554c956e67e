import { AppError } from '@memstream/errors';

/**
 * The default conversation metadata is the deployment's, not a conversation anyone is a member
 * of: agents (API keys) and the local user read and change it; a person reads it only through a
 * group of theirs that falls back to it. The converter refuses a person's change too (a producer
 * may write to Kafka directly); this answers at the edge with the same code.
 */
export function refuseDefaultToPerson(person: string | undefined): void {
  if (person === undefined) return;
  throw new AppError(
    'FORBIDDEN',
    'The default conversation metadata applies to every group without its own: only an agent may read or change it',
  );
}
