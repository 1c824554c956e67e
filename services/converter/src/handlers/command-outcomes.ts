import type { AccessLevel, Actor, RequestOutcome } from '@memstream/schemas';
import type { Queryable } from '@memstream/store';
import { commandRefusal } from '../access-gate.js';

/** A command on a conversation (a flush, a completion, a purge) applied, with what it did. */
export function commandDone(
  requestId: string,
  conversationId: string,
  result: Record<string, unknown>,
): RequestOutcome {
  return outcome(requestId, conversationId, { status: 'stored', result, error_code: null, error_message: null });
}

/** A command on a conversation refused, with the code and words the API would answer. */
export function commandFailed(
  requestId: string,
  conversationId: string,
  code: string,
  message: string,
): RequestOutcome {
  return outcome(requestId, conversationId, {
    status: 'failed',
    result: null,
    error_code: code,
    error_message: message,
  });
}

/**
 * Whether a person may run a command needing `level` on a conversation, decided again where it is
 * applied, as the API answers it: not found when the conversation does not exist (`exists`) or
 * the person is no member of it (a stranger learns nothing), forbidden below `level`.
 */
export async function commandRefusalOutcome(
  q: Queryable,
  o: {
    readonly requestId: string;
    readonly conversationId: string;
    readonly actor: Actor | undefined;
    readonly level: AccessLevel;
    readonly exists: boolean;
    readonly notFound: string;
    readonly forbidden: (level: AccessLevel) => string;
  },
): Promise<RequestOutcome | undefined> {
  const notFound = () => commandFailed(o.requestId, o.conversationId, 'RESOURCE_NOT_FOUND', o.notFound);
  if (!o.exists) return notFound();
  const refused = await commandRefusal(q, o.conversationId, o.actor, o.level);
  if (refused === undefined) return undefined;
  if (refused.code === 'RESOURCE_NOT_FOUND') return notFound();
  return commandFailed(o.requestId, o.conversationId, 'FORBIDDEN', o.forbidden(refused.level));
}

function outcome(
  requestId: string,
  conversationId: string,
  end: Pick<RequestOutcome, 'status' | 'result' | 'error_code' | 'error_message'>,
): RequestOutcome {
  return {
    request_id: requestId,
    kind: 'conversation',
    group_id: conversationId,
    message_id: null,
    duplicate: false,
    ...end,
  };
}
