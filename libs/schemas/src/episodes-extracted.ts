import { z } from 'zod';

/**
 * Told to every API replica when the extractor stored the memories of episodes, so a call waiting
 * for them (a flush in sync mode) reads them at once instead of polling. Best effort like every
 * fan-out message: a waiter also reads again now and then, and the store stays the truth.
 */
export const EpisodesExtracted = z.object({
  episode_ids: z.array(z.number().int().min(1)).min(1),
  /**
   * The conversation the episodes belong to, so a wait for episodes not stored yet (a closing
   * write's) wakes for its own conversation only. A notice without it (an older extractor) wakes
   * every such wait.
   */
  conversation_id: z.string().min(1).optional(),
});
export type EpisodesExtracted = z.infer<typeof EpisodesExtracted>;

export const EPISODES_EXTRACTED_CHANNEL = 'memstream.episodes-extracted';
