import { z } from 'zod';

/** The spec's answer when the write is safe but not yet done. */
export function acceptedReply(requestId: string) {
  return { status: 'ok', message: 'Request accepted, processing in background', request_id: requestId };
}

export const AcceptedReply = z
  .object({ status: z.literal('ok'), message: z.string(), request_id: z.string() })
  .meta({ description: 'Kafka has the write, storing it outlasted REQUEST_SYNC_TIMEOUT_MS (or sync_mode=false): poll GET /api/v1/stats/request' });
