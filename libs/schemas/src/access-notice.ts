import { z } from 'zod';

/**
 * Told to every read-API replica when people may have lost access to conversation groups: a
 * member removed or lowered, a group deleted, ownership moved. Streams opened before the change
 * (ARK SSE, the response resumer) were authorized only when they opened; on this notice each
 * open stream of a person in a named group checks the person's level again and ends if it is gone.
 * Best effort like every fan-out message: readers also re-check on a timer.
 */
export const AccessChanged = z.object({ group_ids: z.array(z.string().min(1)).min(1) });
export type AccessChanged = z.infer<typeof AccessChanged>;

export const ACCESS_CHANGED_CHANNEL = 'memstream.access-changed';
