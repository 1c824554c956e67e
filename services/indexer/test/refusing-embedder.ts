import { createHashEmbedder, type Embedder } from '@memstream/embedding';
import { AppError } from '@memstream/errors';

/**
 * The hash embedder, refusing (as a model server refuses a request, for good) any batch holding
 * `poison`; `texts` records every text it was asked for.
 */
export function refusing(poison: string, dimension = 16): Embedder & { texts: string[] } {
  const inner = createHashEmbedder({ dimension });
  const texts: string[] = [];
  return {
    model: inner.model,
    dimension: inner.dimension,
    texts,
    async embed(batch, purpose) {
      texts.push(...batch);
      if (batch.some((x) => x.includes(poison)))
        throw new AppError('SYSTEM_ERROR', 'embedding model request rejected (400)');
      return inner.embed(batch, purpose);
    },
    close: () => inner.close(),
  };
}
