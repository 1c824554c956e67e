import { z } from 'zod';

/**
 * One memory extracted from an episode: the group's narrative of it (`user_id` null) or what it
 * says about one participant. `message_ids` are the episode's source messages.
 */
export const EpisodicMemory = z.object({
  id: z.string().min(1),
  episode_id: z.number().int().min(1),
  version: z.number().int().min(1),
  conversation_id: z.string().min(1),
  user_id: z.string().nullable(),
  title: z.string(),
  content: z.string(),
  occurred_at: z.iso.datetime({ offset: true }),
  ended_at: z.iso.datetime({ offset: true }),
  message_ids: z.array(z.string()),
  participants: z.array(z.string()),
  extractor: z.string(),
});
export type EpisodicMemory = z.infer<typeof EpisodicMemory>;
