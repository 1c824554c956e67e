export { AcceptedReply } from '@memstream/schemas';

/** The spec's answer when the write is safe but not yet done. */
export function acceptedReply(requestId: string) {
  return { status: 'ok', message: 'Request accepted, processing in background', request_id: requestId };
}
