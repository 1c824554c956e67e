import { publishEvents, type BusRecord, type HandlerContext } from '@memstream/bus';
import type { FlushTail } from '../coalescer.js';
import type { Logger } from '@memstream/logging';
import {
  appendByShardGroup,
  defaultMetaOfGroup,
  findRequestOutcomes,
  patchConversationMeta,
  patchDefaultConversationMeta,
  recordRequestOutcomes,
  upsertConversationMeta,
  upsertDefaultConversationMeta,
  type Queryable,
  type ShardGroupsOf,
  type Store,
  type StoredConversationMeta,
  type StoredDefaultConversationMeta,
} from '@memstream/store';
import {
  TOPICS,
  conversationIdOf,
  parseCreateTime,
  senderRefusal,
  type GroupChatInput,
  type GroupChatMessageReceived,
  type MemoriesDeleted,
  type MemoriesFlushRequested,
  type MessageStored,
  type RequestOutcome,
} from '@memstream/schemas';
import { fromGroupChatMessage } from '../mappers/evermemos.js';
import { storedEvent } from '../stored-event.js';
import { gateByActor } from '../access-gate.js';
import { handleMemoriesDeletions } from './memories-deletion.js';
import { handleFlushes } from './memories-flush.js';
import { publishLiveMessages } from '../live-messages.js';
import { announce } from './announce.js';
import type { ConverterDeps } from './converter-deps.js';
import type { MetaCache } from '../meta-cache.js';

/**
 * Handles consecutive events of one partition of the group-chat input topic: messages become
 * canonical messages (stored once, numbered in arrival order), metadata is upserted or patched
 * exactly between the messages around it, and every event's outcome is recorded with its write.
 * A batch of messages only is one statement; a batch with metadata is one transaction. After
 * that, stored messages go out on the stored topic and outcomes on the completion channel, where
 * gateways holding HTTP calls open are listening.
 *
 * Redelivery is harmless: a message finds its row and writes nothing, an event that already has
 * an outcome keeps it. The stored event is published again anyway: if the first delivery died
 * between the commit and the publish, this is how downstream consumers still hear of it (they
 * are idempotent too).
 */
export function handleGroupChatBatch(deps: ConverterDeps) {
  const writes = handleWrites(deps);
  const deletions = handleMemoriesDeletions(deps);
  const flushes = handleFlushes(deps);
  return async (batch: readonly GroupChatInput[], ctx: HandlerContext): Promise<FlushTail> => {
    // Commands (deletions, flushes) after the writes of the same flush, in their own order: what
    // a client wrote before asking to forget or flush it is there to be forgotten or flushed.
    const written = batch.filter((e): e is GroupChatWrite => !isCommand(e));
    const commands = batch.filter(isCommand);
    const tail = written.length > 0 ? await writes(written, ctx) : { pending: Promise.resolve() };
    if (commands.length > 0) {
      await tail.pending; // the writes' stored events first, as the order on the topic says
      for (const command of commands) {
        if (command.type === 'group_chat.memories.deleted') await deletions([command], ctx);
        else await flushes([command], ctx);
      }
    }
    return tail;
  };
}

type GroupChatCommand = MemoriesDeleted | MemoriesFlushRequested;
/** Messages and metadata: what the topic carries but commands. */
type GroupChatWrite = Exclude<GroupChatInput, GroupChatCommand>;

function isCommand(e: GroupChatInput): e is GroupChatCommand {
  return e.type === 'group_chat.memories.deleted' || e.type === 'group_chat.memories.flush_requested';
}

function handleWrites(deps: ConverterDeps) {
  return async (batch: readonly GroupChatWrite[], ctx: HandlerContext): Promise<FlushTail> => {
    const { admitted: events, refused } = await gateByActor(
      deps.store,
      batch,
      // ownRefusal turns away a person's default config before a group is asked for
      (e) => groupOf(e) ?? '',
      refusalOf,
      ownRefusal,
    );
    if (refused.length > 0) await recordRequestOutcomes(deps.store, refused);
    const hasMeta = events.some((e) => e.type !== 'group_chat.message.received');
    let applied: Applied;
    try {
      applied = hasMeta
        ? await deps.store.transaction((tx) => applyInOrder(tx, events, deps.metas, deps.shardGroups))
        : await applyInOrder(deps.store, events, deps.metas, deps.shardGroups);
    } catch (err) {
      if (hasMeta) deps.metas.clear(); // rows written through may have been rolled back
      throw err;
    }
    const outcomes = await withEarlierOutcomes(deps.store, applied);
    const now = new Date().toISOString();
    const storedEvents = applied.stored.map(({ event, message }) => storedEvent(message, event.correlation_id, now));
    // The held HTTP calls need only the commit, so they are told at once, not after the publish.
    // Both must happen before the offsets are committed: a crash in between redelivers the batch,
    // which finds its rows and publishes and announces again. The publish is the flush's tail: the
    // next flush's statement runs while it is written (see coalesce).
    const published = publishEvents(deps.bus, TOPICS.messagesStored, storedEvents);
    published.catch(() => undefined); // awaited through the tail; this only covers announce throwing first
    // A stream of the group (ARK's, on any replica) hears of the messages now, not at its next heartbeat.
    await Promise.all([
      announce(deps.fanout, [...refused, ...outcomes], ctx.log),
      publishLiveMessages(
        deps.fanout,
        applied.stored.map((s) => s.message),
        ctx.log,
      ),
    ]);
    const { written } = applied;
    ctx.log.info(
      {
        events: events.length,
        refused: refused.length,
        stored: written,
        duplicates: applied.stored.length - written,
        correlationIds: ctx.correlationIds,
      },
      'group-chat batch stored',
    );
    return { pending: published };
  };
}

/** The same handler for one event: the bus's fallback when a batch has to be taken apart. */
export function handleGroupChatEvent(deps: ConverterDeps) {
  const batch = handleGroupChatBatch(deps);
  return async (event: GroupChatInput, ctx: HandlerContext): Promise<void> => (await batch([event], ctx)).pending;
}

/**
 * A record that ended on the dead-letter topic still gets an outcome when it carries an event
 * id, so whoever polls its status (or holds its HTTP call open) learns it failed.
 */
export function recordDeadLetter(deps: ConverterDeps, log: Logger) {
  return async (record: BusRecord, reason: { code: string; message: string }): Promise<void> => {
    const event = peek(record.value);
    if (!event) return;
    const outcome: RequestOutcome = {
      request_id: event.id,
      kind: event.type.startsWith('conversation.')
        ? 'conversation'
        : event.type === 'group_chat.conversation_meta.upserted' ||
            event.type === 'group_chat.conversation_meta.patched'
          ? 'conversation_meta'
          : 'message',
      status: 'failed',
      group_id: event.groupId,
      message_id: event.messageId,
      duplicate: false,
      result: null,
      error_code: reason.code,
      error_message: reason.message,
    };
    await recordRequestOutcomes(deps.store, [outcome]);
    await announce(deps.fanout, [outcome], log);
  };
}

interface Applied {
  /** One per event, in order; undefined where an earlier delivery's outcome stands (read it back). */
  outcomes: Array<RequestOutcome | undefined>;
  requestIds: string[];
  /** Messages actually inserted (the rest were already stored). */
  written: number;
  stored: Array<{ event: GroupChatMessageReceived; message: MessageStored['data'] }>;
}

async function applyInOrder(
  q: Queryable,
  events: readonly GroupChatWrite[],
  cache: MetaCache,
  shardGroups: ShardGroupsOf | undefined,
): Promise<Applied> {
  const metas = await cache.get(
    q,
    events.flatMap((e) => groupOf(e) ?? []),
  );
  // A group without metadata of its own takes the default config's; read only when one does.
  let fallback: Promise<StoredDefaultConversationMeta | undefined> | undefined;
  const metaOf = async (groupId: string): Promise<StoredConversationMeta | undefined> => {
    const own = metas.get(groupId);
    if (own) return own;
    fallback ??= cache.defaultMeta(q);
    const meta = await fallback;
    return meta && defaultMetaOfGroup(meta, groupId);
  };
  const applied: Applied = { outcomes: [], requestIds: events.map((e) => e.id), written: 0, stored: [] };
  let pending: GroupChatMessageReceived[] = [];

  const flushMessages = async () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    const items = [];
    for (const e of batch)
      items.push({ requestId: e.id, message: fromGroupChatMessage(e.data, await metaOf(conversationIdOf(e.data))) });
    const results = await appendByShardGroup(q, items, shardGroups);
    results.forEach((r, i) => {
      const event = batch[i]!;
      if (!r.duplicate) applied.written++;
      applied.stored.push({ event, message: r.message });
      applied.outcomes.push(
        r.outcomeRecorded
          ? {
              request_id: event.id,
              kind: 'message',
              status: 'stored',
              group_id: r.message.conversation_id,
              message_id: r.message.message_id,
              duplicate: r.duplicate,
              result: { sequence: r.message.seq },
              error_code: null,
              error_message: null,
            }
          : undefined,
      );
    });
  };

  const metaIds = events.filter((e) => e.type !== 'group_chat.message.received').map((e) => e.id);
  const known = await findRequestOutcomes(q, metaIds);
  for (const event of events) {
    if (event.type === 'group_chat.message.received') {
      pending.push(event);
      continue;
    }
    await flushMessages();
    if (known.has(event.id)) {
      applied.outcomes.push(undefined); // a replayed metadata write is not applied twice
      continue;
    }
    const groupId = event.data.group_id ?? null;
    let row: StoredConversationMeta | StoredDefaultConversationMeta | undefined;
    if (groupId === null) {
      row =
        event.type === 'group_chat.conversation_meta.upserted'
          ? await upsertDefaultConversationMeta(q, event.data, parseCreateTime(event.data.created_at)!)
          : await patchDefaultConversationMeta(q, event.data);
      if (row) {
        fallback = Promise.resolve(row);
        cache.setDefault(row);
      }
    } else {
      row =
        event.type === 'group_chat.conversation_meta.upserted'
          ? await upsertConversationMeta(
              q,
              { ...event.data, group_id: groupId },
              parseCreateTime(event.data.created_at)!,
            )
          : await patchConversationMeta(q, groupId, event.data);
      if (row) {
        metas.set(row.group_id, row);
        cache.set(row);
      }
    }
    const outcome = metaOutcome(event.id, groupId, row);
    await recordRequestOutcomes(q, [outcome]);
    applied.outcomes.push(outcome);
  }
  await flushMessages();
  return applied;
}

/** Outcomes of a batch, with those recorded by an earlier delivery read back from the store. */
async function withEarlierOutcomes(store: Store, applied: Applied): Promise<RequestOutcome[]> {
  const earlierIds = applied.requestIds.filter((_, i) => applied.outcomes[i] === undefined);
  const earlier = await findRequestOutcomes(store, earlierIds);
  return applied.requestIds.flatMap((id, i) => {
    const outcome = applied.outcomes[i] ?? earlier.get(id);
    return outcome ? [outcome] : [];
  });
}

function metaOutcome(
  requestId: string,
  groupId: string | null,
  row: StoredConversationMeta | StoredDefaultConversationMeta | undefined,
): RequestOutcome {
  return {
    request_id: requestId,
    kind: 'conversation_meta',
    status: row ? 'stored' : 'failed',
    group_id: groupId,
    message_id: null,
    duplicate: false,
    result: row ? (JSON.parse(JSON.stringify(row)) as Record<string, unknown>) : null,
    error_code: row ? null : 'RESOURCE_NOT_FOUND',
    error_message: row
      ? null
      : groupId === null
        ? 'Default config not found'
        : `Conversation metadata not found: ${groupId}`,
  };
}

/** The group an event writes to; null for the default config, which is no group's. */
function groupOf(event: GroupChatWrite): string | null {
  return event.type === 'group_chat.message.received' ? conversationIdOf(event.data) : (event.data.group_id ?? null);
}

/**
 * What a person may write nowhere: a message as someone else (see senderRefusal), and the default
 * config, which shapes every group without metadata, theirs or not (agents set it).
 */
function ownRefusal(event: GroupChatWrite): string | undefined {
  if (event.type === 'group_chat.message.received') return senderRefusal(event.actor, event.data.sender, 'sender');
  return groupOf(event) === null && event.actor?.kind === 'user'
    ? 'The default conversation metadata applies to every group without its own: only an agent may change it'
    : undefined;
}

function refusalOf(event: GroupChatWrite, code: string, message: string): RequestOutcome {
  const isMessage = event.type === 'group_chat.message.received';
  return {
    request_id: event.id,
    kind: isMessage ? 'message' : 'conversation_meta',
    status: 'failed',
    group_id: groupOf(event),
    message_id: isMessage ? event.data.message_id : null,
    duplicate: false,
    result: null,
    error_code: code,
    error_message: message,
  };
}

/** What can be read from a record that failed validation: enough to file its outcome, if anything. */
function peek(
  value: Buffer,
): { id: string; type: string; groupId: string | null; messageId: string | null } | undefined {
  try {
    const json = JSON.parse(value.toString('utf8')) as { id?: unknown; type?: unknown; data?: Record<string, unknown> };
    // PostgreSQL text holds no NUL: an outcome naming one could never be written
    const storable = (v: unknown): v is string => typeof v === 'string' && !v.includes('\u0000');
    if (!storable(json.id) || json.id === '' || json.id.length > 200) return undefined;
    const data = json.data ?? {};
    const str = (v: unknown) => (storable(v) ? v : null);
    return {
      id: json.id,
      type: str(json.type) ?? '',
      groupId: str(data['group_id']),
      messageId: str(data['message_id']),
    };
  } catch {
    return undefined;
  }
}
