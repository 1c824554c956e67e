import type { RequestLedger } from '@memstream/fanout';
import {
  episodeOfMessage,
  findRequestOutcome,
  memoriesOfMessage,
  type CloseReason,
  type Store,
  type StoredRequestOutcome,
} from '@memstream/store';

/** A stored message's place in memory formation. */
export interface MessageExtraction {
  readonly episode_id: number;
  /** `extracted` once the episode holding the message has its memories; `pending` while it waits or retries. */
  readonly status: 'extracted' | 'pending';
  readonly close_reason: CloseReason;
  /** The episode's current memories (none while pending). */
  readonly memory_ids: readonly string[];
}

export type RequestStatus =
  /** Published to the input topic, and not yet applied by the converter. */
  | { readonly status: 'accepted' }
  | {
      /** The outcome's status, or `extracted` for a stored message whose episode has its memories. */
      readonly status: 'stored' | 'failed' | 'extracted';
      readonly outcome: StoredRequestOutcome;
      /** Undefined for a failure, a request that is not a message, a message still in the open span, or a group the caller may not read. */
      readonly extraction: MessageExtraction | undefined;
    };

/**
 * Where a write request is: the one read of a request's status, over the places that know in
 * order of authority. The converter's outcome row (written with the write itself, kept
 * REQUEST_STATUS_TTL_SECONDS) is the truth once it exists, and memory formation of a stored
 * message follows from it; before it, the marker the writer set on the ledger when the broker
 * acknowledged says `accepted` (nothing else knows of the request between the ack and the
 * converter's write). Undefined: unknown, or older than the retention.
 *
 * The request id is the writer's receipt (a random UUID only the caller was given), so its outcome
 * is theirs; what memory formation made of the group is read only when `mayReadGroup` says so.
 */
export async function readRequestStatus(
  deps: { readonly store: Store; readonly ledger: RequestLedger },
  requestId: string,
  mayReadGroup: (groupId: string) => Promise<boolean>,
): Promise<RequestStatus | undefined> {
  const outcome = await findRequestOutcome(deps.store, requestId);
  if (outcome) {
    const readable = outcome.group_id === null || (await mayReadGroup(outcome.group_id));
    const extraction = readable ? await extractionOf(deps.store, outcome) : undefined;
    return { status: extraction?.status === 'extracted' ? 'extracted' : outcome.status, outcome, extraction };
  }
  return (await deps.ledger.isAccepted(requestId)) ? { status: 'accepted' } : undefined;
}

async function extractionOf(store: Store, outcome: StoredRequestOutcome): Promise<MessageExtraction | undefined> {
  if (outcome.status !== 'stored' || outcome.kind !== 'message' || !outcome.group_id || !outcome.message_id)
    return undefined;
  const episode = await episodeOfMessage(store, outcome.group_id, outcome.message_id);
  if (!episode) return undefined;
  const extracted = episode.status === 'extracted';
  const memories = extracted ? await memoriesOfMessage(store, outcome.group_id, outcome.message_id) : [];
  return {
    episode_id: episode.id,
    status: extracted ? 'extracted' : 'pending',
    close_reason: episode.close_reason,
    memory_ids: memories.map((m) => m.id),
  };
}
