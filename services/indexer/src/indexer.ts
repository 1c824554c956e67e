import type { Embedder } from '@memstream/embedding';
import type { Logger } from '@memstream/logging';
import type { CanonicalMessage, EpisodicMemory } from '@memstream/schemas';
import {
  indexMemories,
  indexMessages,
  messageSearchText,
  replaceVectors,
  staleVectors,
  unembeddedItems,
  unindexedMemories,
  type SearchKind,
  type Store,
} from '@memstream/store';
import { memoryText } from './document-text.js';

/**
 * Keeps the search index: every stored message gets its vector from the configured model (its
 * keyword entry was written with the message, by the converter), and every current episodic
 * memory its keyword entry and vector. Writes are upserts keyed by the item, so redelivery
 * re-indexes the same rows. `sweep` repairs what events did not bring (a memory
 * whose event was lost) and re-embeds, in the background, what another model embedded.
 */
export class Indexer {
  /**
   * Rows of other models exist only from before a model change (every write uses the current
   * model), so the search for them runs until one round comes back short, not on every sweep.
   */
  private reembedding = true;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly reembedBatch: number,
    private readonly log: Logger,
  ) {}

  async indexMessages(messages: readonly CanonicalMessage[]): Promise<number> {
    const items = messages.map((m) => ({ m, text: messageSearchText(m) })).filter((x) => x.text !== '');
    if (items.length === 0) return 0;
    const vectors = await this.embedder.embed(
      items.map((x) => x.text),
      'document',
    );
    return indexMessages(
      this.store,
      this.embedder.model,
      items.map((x, i) => ({
        conversationId: x.m.conversation_id,
        messageId: x.m.message_id,
        text: x.text,
        embedding: vectors[i]!,
      })),
    );
  }

  async indexMemories(memories: readonly EpisodicMemory[]): Promise<number> {
    if (memories.length === 0) return 0;
    const texts = memories.map(memoryText);
    const vectors = await this.embedder.embed(texts, 'document');
    return indexMemories(
      this.store,
      this.embedder.model,
      memories.map((m, i) => ({ memoryId: m.id, text: texts[i]!, embedding: vectors[i]! })),
    );
  }

  /** One round of repair and re-embedding; returns how much it did (0: nothing left). */
  async sweep(): Promise<number> {
    const missing = await unindexedMemories(this.store, this.reembedBatch);
    if (missing.length > 0) await this.indexMemories(missing);
    const imported = await unembeddedItems(this.store, this.reembedBatch);
    if (imported.length > 0) await this.embedItems(imported);
    const stale = this.reembedding ? await staleVectors(this.store, this.embedder.model, this.reembedBatch) : [];
    if (stale.length < this.reembedBatch) this.reembedding = false;
    if (stale.length > 0) {
      await this.embedItems(stale);
      this.log.info({ items: stale.length, model: this.embedder.model }, 're-embedded items of another model');
    }
    return missing.length + imported.length + stale.length;
  }

  private async embedItems(items: ReadonlyArray<{ kind: SearchKind; item_id: string; content: string }>) {
    const vectors = await this.embedder.embed(
      items.map((s) => s.content),
      'document',
    );
    await replaceVectors(
      this.store,
      this.embedder.model,
      items.map((s, i) => ({ kind: s.kind, itemId: s.item_id, embedding: vectors[i]! })),
    );
  }
}
