import { offlineExtractor } from '@memstream/extractor';
import type { CanonicalMessage, ExportDataRecord, ExportRecord } from '@memstream/schemas';
import { memoryIdOf, type Episode } from '@memstream/store';
import { messageText, seededRandom } from './chat-text.js';

/**
 * The data bench:erasure erases, as an export the server imports through POST /v1/admin/imports
 * (the store's own writers: messages with their search rows, episodes, memories, summaries), so
 * seeding takes seconds instead of the hours 10,000 writes through the pipeline would take on a
 * shared machine. The rows are the pipeline's: episodes cut at a message cap, their memories made
 * by the offline extractor itself (the embedded default: a narrative and one memory per
 * participant), one rolling summary per conversation; the vectors come from the server's indexer.
 *
 * A person sends `personMessages` messages: half in memory-service conversations they own (they
 * alone write there), half in EverMemOS groups where a partner writes as many. Each memory-service
 * episode holds 10 of their messages, each group episode 10 of theirs and 10 of the partner's, so
 * the person has personMessages / 10 memories of their own (user_id), beside the narratives and
 * the partners' memories of the same episodes. Other people own conversations of their own.
 */
export interface SeedPlan {
  /** Every person seeded this way; each gets the same shape of data. */
  readonly people: readonly string[];
  readonly personMessages: number;
  /** Messages of other people, in conversations only they own. */
  readonly othersMessages: number;
  readonly runId: string;
}

/** Messages a person sends into one conversation or group. */
export const PER_CONVERSATION = 250;
/** The person's messages per episode (a group episode holds as many of the partner's too). */
const PER_EPISODE = 10;

export function checkPlan(plan: SeedPlan): void {
  const unit = 2 * PER_CONVERSATION;
  if (plan.personMessages % unit !== 0) throw new Error(`--messages must be a multiple of ${unit}`);
  if (plan.othersMessages % PER_CONVERSATION !== 0)
    throw new Error(`--others must be a multiple of ${PER_CONVERSATION}`);
}

interface Conversation {
  readonly id: string;
  readonly family: 'memory-service' | 'evermemos';
  readonly owner: string | undefined;
  /** Who writes, in turn. */
  readonly senders: readonly { id: string; name: string }[];
  readonly messages: number;
  readonly episodeSize: number;
}

function conversationsOf(plan: SeedPlan): Conversation[] {
  const out: Conversation[] = [];
  const own = plan.personMessages / 2 / PER_CONVERSATION;
  for (const person of plan.people) {
    const me = { id: person, name: person };
    for (let i = 0; i < own; i++)
      out.push({
        id: `${plan.runId}-${person}-own-${i}`,
        family: 'memory-service',
        owner: person,
        senders: [me],
        messages: PER_CONVERSATION,
        episodeSize: PER_EPISODE,
      });
    for (let i = 0; i < own; i++) {
      const partner = { id: `${person}-partner-${i}`, name: `Partner ${i}` };
      out.push({
        id: `${plan.runId}-${person}-group-${i}`,
        family: 'evermemos',
        owner: undefined,
        senders: [me, partner],
        messages: 2 * PER_CONVERSATION,
        episodeSize: 2 * PER_EPISODE,
      });
    }
  }
  for (let i = 0; i < plan.othersMessages / PER_CONVERSATION; i++) {
    const other = { id: `${plan.runId}-other-${i}`, name: `Other ${i}` };
    out.push({
      id: `${plan.runId}-other-${i}-own`,
      family: 'memory-service',
      owner: other.id,
      senders: [other],
      messages: PER_CONVERSATION,
      episodeSize: PER_EPISODE,
    });
  }
  return out;
}

const T0 = Date.parse('2025-03-01T08:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** The export's lines (header first, end last), each kind in a run of its own so the import stores it in batches. */
export async function* seedExport(plan: SeedPlan): AsyncGenerator<string> {
  checkPlan(plan);
  const byKind = new Map<string, ExportDataRecord[]>();
  const add = (r: ExportDataRecord) => {
    const list = byKind.get(r.kind) ?? [];
    list.push(r);
    byKind.set(r.kind, list);
  };
  const rnd = seededRandom(7);
  let messageRow = 0;
  let episodeRow = 0;
  let summaryRow = 0;
  const conversations = conversationsOf(plan);
  for (const [ci, c] of conversations.entries()) {
    const base = ci * 86_400_000; // a day per conversation, a minute per message
    add({
      kind: 'conversation',
      id: c.id,
      sourceApi: c.family,
      groupId: c.family === 'memory-service' ? c.id : null,
      nextSeq: c.messages,
      title: c.family === 'memory-service' ? `notes ${ci}` : null,
      metadata: {},
      createdAt: at(base),
      updatedAt: at(base + c.messages * 60_000),
      deletedAt: null,
    });
    if (c.owner) add({ kind: 'membership', groupId: c.id, userId: c.owner, accessLevel: 'owner', createdAt: at(base) });
    else
      add({
        kind: 'conversation_meta',
        groupId: c.id,
        id: `meta-${c.id}`,
        version: '1.0',
        scene: 'group_chat',
        sceneDesc: { topic: 'plans' },
        name: `group ${ci}`,
        description: 'two people planning',
        conversationCreatedAt: at(base),
        defaultTimezone: 'UTC',
        userDetails: Object.fromEntries(c.senders.map((s) => [s.id, { full_name: s.name }])),
        tags: [],
        createdAt: at(base),
        updatedAt: at(base),
      });
    const messages: CanonicalMessage[] = [];
    for (let seq = 0; seq < c.messages; seq++) {
      const sender = c.senders[seq % c.senders.length]!;
      const createdAt = at(base + seq * 60_000);
      const content = messageText(rnd, 'user');
      const messageId = c.family === 'memory-service' ? `${c.id}-m${seq}` : `m${seq}`;
      messages.push({
        conversation_id: c.id,
        seq,
        message_id: messageId,
        sender_id: sender.id,
        sender_name: sender.name,
        role: 'user',
        content,
        created_at: createdAt,
        stored_at: createdAt,
        refer_list: [],
        metadata: {},
        source_api: c.family,
      });
      add({
        kind: 'message',
        conversationId: c.id,
        seq,
        id: ++messageRow,
        messageId,
        senderId: sender.id,
        senderName: sender.name,
        role: 'user',
        content,
        createdAt,
        storedAt: createdAt,
        referList: [],
        metadata: c.family === 'memory-service' ? memoryServiceMetadata(sender.id, messageId, content, createdAt) : {},
        sourceApi: c.family,
      });
    }
    for (let start = 0; start < c.messages; start += c.episodeSize) {
      const span = messages.slice(start, start + c.episodeSize);
      const episode: Episode = {
        id: ++episodeRow,
        conversation_id: c.id,
        group_key: c.id,
        start_seq: start,
        end_seq: start + span.length - 1,
        message_ids: span.map((m) => m.message_id),
        start_time: new Date(span[0]!.created_at),
        end_time: new Date(span.at(-1)!.created_at),
        close_reason: 'message_cap',
        status: 'extracted',
        version: 1,
        attempts: 1,
        next_attempt_at: new Date(span.at(-1)!.created_at),
        error: null,
      };
      const madeAt = at(base + (start + span.length) * 60_000 + 5_000);
      add({
        kind: 'episode',
        id: episode.id,
        conversationId: c.id,
        startSeq: episode.start_seq,
        endSeq: episode.end_seq,
        messageIds: episode.message_ids,
        startTime: span[0]!.created_at,
        endTime: span.at(-1)!.created_at,
        closeReason: 'message_cap',
        status: 'extracted',
        version: 1,
        createdAt: madeAt,
        updatedAt: madeAt,
      });
      const memories = await offlineExtractor.extract({
        episode,
        messages: span,
        meta: undefined,
        signal: AbortSignal.timeout(10_000),
      });
      for (const m of memories)
        add({
          kind: 'episodic_memory',
          id: memoryIdOf(episode, m.userId),
          episodeId: episode.id,
          conversationId: c.id,
          version: 1,
          userId: m.userId,
          title: m.title,
          content: m.content,
          occurredAt: span[0]!.created_at,
          endedAt: span.at(-1)!.created_at,
          messageIds: episode.message_ids,
          participants: [...new Set(span.map((s) => s.sender_id))],
          extractor: offlineExtractor.name,
          supersededAt: null,
          createdAt: madeAt,
        });
    }
    const summarizedAt = at(base + c.messages * 60_000 + 10_000);
    add({
      kind: 'summary',
      id: ++summaryRow,
      conversationId: c.id,
      text: `So far: ${messages
        .slice(0, 3)
        .map((m) => m.content)
        .join(' ')}`,
      startSequence: 0,
      endSequence: c.messages - 1,
      baseId: null,
      createdAt: summarizedAt,
      updatedAt: summarizedAt,
      generationTimeMs: 900,
    });
  }

  const header: ExportRecord = {
    kind: 'header',
    format: 'memstream-export',
    version: 1,
    server: 'bench:erasure seed',
    exportedAt: new Date().toISOString(),
    scope: { kind: 'server' },
  };
  yield `${JSON.stringify(header)}\n`;
  const counts: Record<string, number> = {};
  for (const kind of [
    'conversation',
    'conversation_meta',
    'membership',
    'message',
    'episode',
    'episodic_memory',
    'summary',
  ]) {
    const records = byKind.get(kind) ?? [];
    counts[kind] = records.length;
    for (let i = 0; i < records.length; i += 500)
      yield records
        .slice(i, i + 500)
        .map((r) => `${JSON.stringify(r)}\n`)
        .join('');
  }
  yield `${JSON.stringify({ kind: 'end', counts })}\n`;
}

/** The `ms` metadata memory-service keeps with a message it stored (what its reads answer from). */
function memoryServiceMetadata(
  userId: string,
  messageId: string,
  text: string,
  createdAt: string,
): Record<string, unknown> {
  return {
    ms: {
      role: 'user',
      epoch: null,
      channel: 'history',
      content: [{ text, type: 'text' }],
      user_id: userId,
      metadata: {},
      client_id: null,
      created_at: createdAt,
      message_id: messageId,
      visibility: 'user',
      parent_message_id: null,
    },
  };
}
