import type { Embedder } from '@memstream/embedding';
import { isUnavailable } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { Slots } from '@memstream/runtime';
import type { CanonicalMessage, EpisodicMemory } from '@memstream/schemas';
import {
  indexMemories,
  messageSearchText,
  postponeUnembedded,
  queueItemsToEmbed,
  queueMemoriesToEmbed,
  queueMessagesWithoutVectors,
  replaceVectors,
  staleVectors,
  turnEmbeddingInputs,
  unembeddedItems,
  unindexedMemories,
  writeMessageVectorsByShardGroup,
  type MessageToIndex,
  type SearchItemToEmbed,
  type ShardGroupsOf,
  type Store,
  type TurnEmbeddingInput,
  type UnembeddedBackoff,
} from '@memstream/store';
import { memoryText } from './document-text.js';

/**
 * Keeps the search index: every stored message gets its vector from the configured model (its
 * keyword entry was written with the message, by the converter), and every current episodic
 * memory its keyword entry and vector. Writes are upserts keyed by the item, so redelivery
 * re-indexes the same rows. `sweep` repairs what events did not bring (a memory
 * whose event was lost, a message whose indexing was dead-lettered) and re-embeds, in the
 * background, what another model embedded.
 */
/** Passes over turns whose context a concurrent deletion changed (each pass loses only to a deletion). */
const TURN_PASSES = 5;

/** Messages the walk for missing vectors looks at per sweep: a bounded index range, whatever the store's size. */
const MISSING_VECTOR_WINDOW = 5_000;

/** How the sweep repairs. */
export interface SweepRepair {
  /** How long a queued item that was not embedded waits before it is tried again. */
  readonly backoff: UnembeddedBackoff;
  /** Messages stored this long ago with no vector are queued (unset: the store is not walked). */
  readonly missingVectorAfterMs?: number;
}

const NO_WALK: SweepRepair = { backoff: { firstMs: 5_000, maxMs: 900_000 } };

export class Indexer {
  /**
   * Rows of other models exist only from before a model change (every write uses the current
   * model), so the search for them runs until one round comes back short, not on every sweep.
   */
  private reembedding = true;
  /**
   * How far this process's walk over the stored messages got (a messages.id). Kept in memory: a
   * restart walks the store once more, a step a sweep, which also finds what went missing before.
   */
  private walkedTo = '0';

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly reembedBatch: number,
    private readonly log: Logger,
    private readonly repair: SweepRepair = NO_WALK,
    /** The layout's shard groups (shardGroupsOf): writes of several are split by them; unset in the plain layout. */
    private readonly shardGroups?: ShardGroupsOf,
    /** The vector writes that may run at once (INDEXER_WRITERS); every write of this indexer takes one. */
    private readonly writers = new Slots(2),
  ) {}

  async indexMessages(messages: readonly CanonicalMessage[]): Promise<number> {
    const keyOfMessage = (m: CanonicalMessage) => ({ conversationId: m.conversation_id, messageId: m.message_id });
    if (this.embedder.context === 'turn-before') return this.embedTurns(messages.map(keyOfMessage));
    // A memory-service fork's messages are stored under its root's group, which the stored event
    // does not carry: those are read first, with their group. Every other family stores a message
    // under its conversation's own id (the converter's append: group_key ?? conversation_id).
    const forked = messages.filter((m) => m.source_api === 'memory-service');
    const carried = messages.filter((m) => m.source_api !== 'memory-service');
    const read = forked.length === 0 ? 0 : await this.embedTurns(forked.map(keyOfMessage));
    // Without the turn before, the stored events carry all a vector is made of, so the messages are
    // not read first (a statement per batch saved); the write skips any deleted meanwhile.
    const inputs = [...new Map(carried.map((m) => [keyOf(m.conversation_id, m.message_id), m])).values()]
      .map((m) => ({
        groupKey: m.conversation_id,
        conversationId: m.conversation_id,
        messageId: m.message_id,
        text: messageSearchText(m),
      }))
      .filter((x) => x.text !== '');
    if (inputs.length === 0) return read;
    const vectors = await this.embedder.embed(
      inputs.map((x) => x.text),
      'document',
    );
    const written = await this.writeVectors(
      inputs.map((x, i) => ({ ...x, embedding: vectors[i]!, contextItemId: null })),
    );
    return read + written.length;
  }

  /** The vectors written, a statement per shard group (one in the plain layout: no split, no query). */
  private writeVectors(items: readonly MessageToIndex[]) {
    return this.writers.run(() =>
      writeMessageVectorsByShardGroup(this.store, this.embedder.model, items, this.shardGroups),
    );
  }

  /**
   * Embeds stored messages by their keys, each after the turn before it when the embedder asks
   * for that. A turn whose context turn was forgotten between reading and writing is refused by
   * the write (writeMessageVectors) and read again; a message forgotten meanwhile is gone from the
   * inputs and dropped. Each pass writes all but what a deletion raced, so few passes are needed;
   * a turn still refused after the last is left unembedded, and said so.
   */
  private async embedTurns(keys: ReadonlyArray<{ conversationId: string; messageId: string }>): Promise<number> {
    const withContext = this.embedder.context === 'turn-before';
    // one row per key: an upsert may not touch a row twice in one statement
    let pending = [...new Map(keys.map((k) => [keyOf(k.conversationId, k.messageId), k])).values()];
    let written = 0;
    for (let pass = 0; pass < TURN_PASSES && pending.length > 0; pass++) {
      const inputs = (await turnEmbeddingInputs(this.store, pending, withContext)).filter((x) => x.text !== '');
      if (inputs.length === 0) return written;
      const vectors = await this.embedder.embed(inputs.map(turnText), 'document');
      const done = await this.writeVectors(
        inputs.map((x, i) => ({
          groupKey: x.groupKey,
          conversationId: x.conversationId,
          messageId: x.messageId,
          text: x.text,
          embedding: vectors[i]!,
          contextItemId: x.contextItemId,
        })),
      );
      written += done.length;
      const doneKeys = new Set(done.map((k) => keyOf(k.conversationId, k.messageId)));
      pending = inputs.filter((x) => !doneKeys.has(keyOf(x.conversationId, x.messageId)));
    }
    if (pending.length > 0)
      this.log.warn({ messages: pending.length }, 'turns left unembedded: their context kept changing');
    return written;
  }

  async indexMemories(memories: readonly EpisodicMemory[]): Promise<number> {
    if (memories.length === 0) return 0;
    const texts = memories.map(memoryText);
    const vectors = await this.embedder.embed(texts, 'document');
    return this.writers.run(() =>
      indexMemories(
        this.store,
        this.embedder.model,
        memories.map((m, i) => ({ memoryId: m.id, text: texts[i]!, embedding: vectors[i]! })),
        { shardGroups: this.shardGroups },
      ),
    );
  }

  /** One round of repair and re-embedding; returns how much it did (0: nothing left). */
  async sweep(): Promise<number> {
    // Memories and the re-embedding backlog are read oldest first: one that fails every time would
    // head its list on every sweep, and, failing the sweep, hold back the steps after it. Such an
    // item goes on the queue instead, where it waits longer after each failure.
    const missing = await unindexedMemories(this.store, this.reembedBatch);
    const failedMemories = await this.eachAloneOnFailure(missing, (batch) => this.indexMemories(batch), 'memory');
    await queueMemoriesToEmbed(
      this.store,
      failedMemories.map((m) => ({ memoryId: m.id, text: memoryText(m) })),
      { shardGroups: this.shardGroups },
    );
    await this.postponeQueued(failedMemories.map((m) => ({ kind: 'episodic_memory' as const, item_id: m.id })));
    await this.queueMissingVectors();
    const queued = await unembeddedItems(this.store, this.reembedBatch);
    if (queued.length > 0) await this.embedQueued(queued);
    const stale = this.reembedding ? await staleVectors(this.store, this.embedder.model, this.reembedBatch) : [];
    if (stale.length < this.reembedBatch) this.reembedding = false;
    if (stale.length > 0) {
      const failed = await this.eachAloneOnFailure(stale, (batch) => this.embedItems(batch), 'stale vector');
      await queueItemsToEmbed(this.store, failed);
      await this.postponeQueued(failed);
      this.log.info(
        { items: stale.length - failed.length, queued: failed.length, model: this.embedder.model },
        're-embedded items of another model',
      );
    }
    return missing.length + queued.length + stale.length;
  }

  /**
   * Runs `work` on the items together and, when that fails for a reason of the items rather than
   * of a dependency that is down (then it throws: every item would fail alike), on each alone.
   * Returns the items that failed alone, so that one that fails every time holds back no other.
   */
  private async eachAloneOnFailure<T extends { readonly id: string } | SearchItemToEmbed>(
    items: readonly T[],
    work: (batch: readonly T[]) => Promise<unknown>,
    what: string,
  ): Promise<T[]> {
    if (items.length === 0) return [];
    try {
      await work(items);
      return [];
    } catch (err) {
      if (isUnavailable(err)) throw err;
      this.log.warn({ err, items: items.length }, `${what} batch failed; trying each alone`);
    }
    const failed: T[] = [];
    for (const item of items) {
      try {
        await work([item]);
      } catch (err) {
        if (isUnavailable(err)) throw err;
        failed.push(item);
        this.log.warn({ err, itemId: 'item_id' in item ? item.item_id : item.id }, `${what} failed; queued for later`);
      }
    }
    return failed;
  }

  /** Queued items not embedded this time wait longer before the next try (postponeUnembedded). */
  private async postponeQueued(items: ReadonlyArray<Pick<SearchItemToEmbed, 'kind' | 'item_id'>>): Promise<void> {
    await postponeUnembedded(this.store, items, this.repair.backoff);
  }

  /**
   * The messages stored since the walk's last step, once settled, that have no vector go on the
   * queue. The dead-letter listener (start-indexer) queues a message whose indexing failed for good
   * at once; this catches what that missed (the listener failed too, or the loss came before it).
   */
  private async queueMissingVectors(): Promise<void> {
    const settledMs = this.repair.missingVectorAfterMs;
    if (settledMs === undefined) return;
    const step = await queueMessagesWithoutVectors(this.store, this.walkedTo, MISSING_VECTOR_WINDOW, settledMs);
    this.walkedTo = step.next;
    if (step.queued > 0) this.log.warn({ messages: step.queued }, 'messages without a vector queued for the sweep');
  }

  /**
   * Embeds queued items together, and when that fails, one by one, so that an item that fails
   * every time holds back no other. Whatever is still queued afterwards waits longer before it is
   * tried again (postponeUnembedded), so such an item costs a try per backoff, not per sweep.
   * When the model or the database is down, every item would fail alike: they all wait instead.
   */
  private async embedQueued(items: readonly SearchItemToEmbed[]): Promise<void> {
    try {
      await this.eachAloneOnFailure(items, (batch) => this.embedItems(batch), 'queued item');
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      this.log.warn({ err, items: items.length }, 'queued items not embedded; tried later');
    }
    await this.postponeQueued(items);
  }

  /** Messages are embedded again from their rows' keys (their context is rebuilt), memories from their text. */
  private async embedItems(items: readonly SearchItemToEmbed[]) {
    const memories = items.filter((s) => s.kind !== 'message');
    await this.embedTurns(
      items
        .filter((s) => s.kind === 'message')
        .map((s) => ({ conversationId: s.conversation_id, messageId: s.message_ids[0]! })),
    );
    if (memories.length === 0) return;
    const vectors = await this.embedder.embed(
      memories.map((s) => s.content),
      'document',
    );
    await this.writers.run(() =>
      replaceVectors(
        this.store,
        this.embedder.model,
        memories.map((s, i) => ({ groupKey: s.group_key, kind: s.kind, itemId: s.item_id, embedding: vectors[i]! })),
        { shardGroups: this.shardGroups },
      ),
    );
  }
}

/** What a turn is embedded as: its own text, after the turn before it when there is one. */
export function turnText(x: TurnEmbeddingInput): string {
  return x.contextText === '' ? x.text : `${x.contextText}\n${x.text}`;
}

const keyOf = (conversationId: string, messageId: string) => `${conversationId}\u0000${messageId}`;
