import { z } from 'zod';

/**
 * Sent by an API replica holding a write that, by the boundary rules, closes an episode of its
 * conversation: the extractor closes it now rather than when its consumer next lingers to a batch
 * (up to BACKGROUND_LINGER_MS later). Only a hint: the extractor still closes by reading the store
 * under the conversation's lock, so a lost, late or repeated hint changes nothing but the wait.
 */
export const EpisodeClosing = z.object({ conversation_id: z.string().min(1) });
export type EpisodeClosing = z.infer<typeof EpisodeClosing>;

export const EPISODE_CLOSING_CHANNEL = 'memstream.episode-closing';
