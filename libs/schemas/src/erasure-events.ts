import { z } from 'zod';
import { envelopeOf } from './envelope.js';

/**
 * A person's erasure was accepted (`POST /v1/admin/erasures`, `POST /v1/me/erasure`): the job row
 * exists; the converter that receives this runs it. Ids only, never content.
 */
export const ErasureRequested = envelopeOf(
  'person.erasure.requested',
  z.object({ erasure_id: z.uuid(), user_id: z.string().min(1).max(255) }).strict(),
);
export type ErasureRequested = z.infer<typeof ErasureRequested>;

/** What `governance.erasures.v1` carries. */
export const ErasureInput = z.discriminatedUnion('type', [ErasureRequested]);
export type ErasureInput = z.infer<typeof ErasureInput>;
