import type { Embedder } from './embedder.js';

/**
 * The same model, marked as embedding each message after the turn before it. Its vectors get a
 * model id of their own, so search never compares a query with vectors made the other way, and
 * switching the setting either way re-embeds in the background like a change of model.
 */
export function withTurnContext(inner: Embedder): Embedder {
  if (inner.context === 'turn-before') return inner;
  return {
    model: `${inner.model}+turn-before`,
    dimension: inner.dimension,
    context: 'turn-before',
    embed: (texts, purpose) => inner.embed(texts, purpose),
    close: () => inner.close(),
  };
}
