// Placeholder until the embedding library lands (branch local-embedder replaces this file).
import { env } from './load-config.js';
import { z } from 'zod';

export const embeddingSettings = {
  EMBEDDING_PROVIDER: z.enum(['local', 'openai', 'hash']).default('local'),
  EMBEDDING_MODEL: env.optionalString(),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).optional(),
  EMBEDDING_BATCH_SIZE: env.int(64, 1, 2048),
};
export type EmbeddingSettings = z.infer<z.ZodObject<typeof embeddingSettings>>;
