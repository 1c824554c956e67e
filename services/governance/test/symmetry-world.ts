import type { ExportDataRecord } from '@memstream/schemas';
import {
  advanceSequences,
  beginImportScope,
  finishImportScope,
  importRecords,
  recordRequestOutcomes,
  removeMembership,
  setMembership,
  type Store,
} from '@memstream/store';

/**
 * A server written in every family by ann (whose export and erasure the symmetry test compares),
 * bob, carol and an agent writing for them, stored through the import (every kind of the export
 * format) and the repositories (what the format does not carry). Ann's data sits in every place
 * the erasure knows: her own groups, groups she is a member of, an EverMemOS group she is not in
 * (an agent wrote her turn), a KAOS session made for her that carol owns now, a conversation she
 * gave away, memories kept for her in others' groups, and the rows others wrote about her.
 */
export const PERSON = 'ann';
const AT = '2025-01-01T10:00:00.000000Z';
const time = { createdAt: AT, updatedAt: AT };

const conversation = (id: string, sourceApi: string, groupId: string | null = null) =>
  ({
    kind: 'conversation',
    id,
    sourceApi,
    groupId,
    nextSeq: 0,
    title: `${id} title`,
    metadata: { about: id },
    deletedAt: null,
    ...time,
  }) as const;
const member = (groupId: string, userId: string, accessLevel: 'owner' | 'writer' | 'reader') =>
  ({ kind: 'membership', groupId, userId, accessLevel, createdAt: AT }) as const;
let rowId = 0;
const message = (
  conversationId: string,
  seq: number,
  senderId: string,
  o: { metadata?: object; sourceApi?: string } = {},
) =>
  ({
    kind: 'message',
    conversationId,
    seq,
    id: ++rowId,
    messageId: `${conversationId}-m${seq}`,
    senderId,
    senderName: senderId,
    role: senderId === 'agent' ? 'assistant' : 'user',
    content: `${senderId} says ${conversationId} ${seq}`,
    createdAt: AT,
    storedAt: AT,
    referList: [],
    metadata: o.metadata ?? {},
    sourceApi: o.sourceApi ?? 'evermemos',
  }) as const;
const episode = (id: number, conversationId: string, seqs: number[]) =>
  ({
    kind: 'episode',
    id,
    conversationId,
    startSeq: seqs[0]!,
    endSeq: seqs.at(-1)!,
    messageIds: seqs.map((s) => `${conversationId}-m${s}`),
    startTime: AT,
    endTime: AT,
    closeReason: 'idle',
    status: 'extracted',
    version: 1,
    ...time,
  }) as const;
const memory = (id: string, episodeId: number, conversationId: string, userId: string) =>
  ({
    kind: 'episodic_memory',
    id,
    episodeId,
    conversationId,
    version: 1,
    userId,
    title: `about ${userId}`,
    content: `${userId} likes ${id}`,
    occurredAt: AT,
    endedAt: AT,
    messageIds: [],
    participants: [userId],
    extractor: 'test',
    supersededAt: null,
    createdAt: AT,
  }) as const;
const summary = (id: number, conversationId: string, baseId: number | null = null) =>
  ({
    kind: 'summary',
    id,
    conversationId,
    text: `summary ${id}`,
    startSequence: 0,
    endSequence: 1,
    baseId,
    generationTimeMs: 5,
    ...time,
  }) as const;
const meta = (groupId: string, users: string[]) =>
  ({
    kind: 'conversation_meta',
    groupId,
    id: `meta-${groupId}`,
    version: '1',
    scene: 'group_chat',
    sceneDesc: { d: groupId },
    name: `${groupId} name`,
    description: `${groupId} about`,
    conversationCreatedAt: AT,
    defaultTimezone: 'UTC',
    userDetails: Object.fromEntries(users.map((u) => [u, { full_name: `${u} full`, role: 'user' }])),
    tags: ['t'],
    ...time,
  }) as const;
const kaosSession = (sessionId: string, userId: string) =>
  ({
    kind: 'kaos_session',
    agent: 'agent-x',
    sessionId,
    conversationId: `kaos-${sessionId}`,
    appName: 'app',
    userId,
    ord: sessionId.length,
    nextEvent: 2,
    ...time,
  }) as const;
const kaosEvent = (sessionId: string, seq: number) =>
  ({
    kind: 'kaos_event',
    conversationId: `kaos-${sessionId}`,
    seq,
    eventId: `kaos-${sessionId}-m${seq}`,
    occurredAt: AT,
    eventType: 'user_message',
    content: '{}',
    metadata: '{}',
  }) as const;
const transfer = (id: string, groupId: string, fromUserId: string, toUserId: string, status: 'pending' | 'accepted') =>
  ({
    kind: 'ownership_transfer',
    id,
    groupId,
    conversationId: groupId,
    fromUserId,
    toUserId,
    status,
    createdAt: AT,
    decidedAt: null,
  }) as const;

const RECORDS = [
  // EverMemOS: bob's group, which ann is not in, where an agent wrote her turn; ann's own group with carol in it
  conversation('ev-bob', 'evermemos'),
  conversation('ev-ann', 'evermemos'),
  conversation('ev-bob-other', 'evermemos'),
  // memory-service: bob's conversation and its fork (ann a writer, offered ownership); one ann gave carol
  conversation('ms-bob', 'memory-service', 'ms-bob'),
  conversation('ms-bob-fork', 'memory-service', 'ms-bob'),
  conversation('ms-carol', 'memory-service', 'ms-carol'),
  conversation('private:ann', 'memory-agent'),
  // KAOS: a session made for ann that nobody owns, and one made for her that carol owns now
  conversation('kaos-s-ann', 'kaos'),
  conversation('kaos-s-carol', 'kaos'),
  {
    kind: 'fork',
    conversationId: 'ms-bob-fork',
    forkedAtConversationId: 'ms-bob',
    forkedAtMessageId: 'ms-bob-m0',
    sourceConversationId: 'ms-bob',
    sourceSeq: 0,
  },
  { kind: 'ark_session', sessionId: 'ark-ann', createdAt: AT, completedAt: AT },
  { kind: 'ark_session', sessionId: 'ark-bob', createdAt: AT, completedAt: null },
  meta('ev-bob', ['bob', PERSON]),
  meta('ev-ann', [PERSON, 'carol']),
  meta('ev-bob-other', ['bob']),
  ...[member('ev-bob', 'bob', 'owner'), member('ev-ann', PERSON, 'owner'), member('ev-ann', 'carol', 'writer')],
  ...[member('ev-bob-other', 'bob', 'owner'), member('ms-bob', 'bob', 'owner'), member('ms-bob', PERSON, 'writer')],
  ...[
    member('ms-carol', 'carol', 'owner'),
    member('kaos-s-carol', 'carol', 'owner'),
    member('ark-ann', PERSON, 'owner'),
  ],
  ...[member('ark-bob', 'bob', 'owner'), member('ark-bob', PERSON, 'reader')],
  {
    kind: 'membership_removal',
    id: 900,
    groupId: 'ev-ann',
    userId: 'bob',
    accessLevel: 'reader',
    createdAt: AT,
    removedAt: AT,
  },
  transfer('00000000-0000-4000-8000-000000000001', 'ms-bob', 'bob', PERSON, 'pending'),
  transfer('00000000-0000-4000-8000-000000000002', 'ms-carol', PERSON, 'carol', 'accepted'),
  ...[message('ev-bob', 0, 'bob'), message('ev-bob', 1, PERSON), message('ev-bob', 2, 'bob')],
  ...[message('ev-ann', 0, PERSON), message('ev-ann', 1, 'carol'), message('ev-bob-other', 0, 'bob')],
  ...[
    message('ms-bob', 0, 'bob', { sourceApi: 'memory-service' }),
    message('ms-bob', 1, PERSON, { sourceApi: 'memory-service' }),
  ],
  message('ms-bob', 2, 'agent', { sourceApi: 'memory-service', metadata: { ms: { channel: 'summary' } } }),
  ...[
    message('ms-bob-fork', 1, 'bob', { sourceApi: 'memory-service' }),
    message('ms-carol', 0, PERSON, { sourceApi: 'memory-service' }),
  ],
  ...[
    message('ms-carol', 1, 'carol', { sourceApi: 'memory-service' }),
    message('private:ann', 0, PERSON, { sourceApi: 'memory-agent' }),
  ],
  ...[
    message('kaos-s-ann', 0, PERSON, { sourceApi: 'kaos' }),
    message('kaos-s-ann', 1, 'agent', { sourceApi: 'kaos' }),
  ],
  ...[
    message('kaos-s-carol', 0, PERSON, { sourceApi: 'kaos' }),
    message('kaos-s-carol', 1, 'agent', { sourceApi: 'kaos' }),
  ],
  // ann's words and bob's in one episode of bob's group, and one of bob's words only with a memory kept for ann
  ...[
    episode(1, 'ev-bob', [0, 1, 2]),
    episode(2, 'ev-bob', [2]),
    episode(3, 'ev-ann', [0, 1]),
    episode(4, 'ms-carol', [1]),
  ],
  ...[
    memory('mem-bob-1', 1, 'ev-bob', 'bob'),
    memory('mem-ann-1', 1, 'ev-bob', PERSON),
    memory('mem-ann-2', 2, 'ev-bob', PERSON),
  ],
  ...[memory('mem-carol-3', 3, 'ev-ann', 'carol'), memory('mem-carol-4', 4, 'ms-carol', 'carol')],
  ...[
    summary(1, 'ev-bob'),
    summary(2, 'ev-ann'),
    summary(3, 'ev-ann', 2),
    summary(4, 'private:ann'),
    summary(5, 'ms-carol'),
  ],
  ...[kaosSession('s-ann', PERSON), kaosSession('s-carol', PERSON)],
  ...[kaosEvent('s-ann', 0), kaosEvent('s-ann', 1), kaosEvent('s-carol', 0), kaosEvent('s-carol', 1)],
  ...[
    { kind: 'ark_chunk', sessionId: 'ark-ann', seq: 1, chunk: { t: 'a' }, createdAt: AT },
    { kind: 'ark_chunk', sessionId: 'ark-bob', seq: 2, chunk: { t: 'b' }, createdAt: AT },
  ],
] as unknown as ExportDataRecord[];

/** Writes the world; throws when the import refuses any of it (the fixture would be wrong). */
export async function writeWorld(store: Store): Promise<void> {
  await store.transaction(async (tx) => {
    const scope = beginImportScope();
    for (const r of RECORDS) {
      const outcome = await importRecords(tx, scope, r.kind, [r] as never);
      if (outcome.stored !== 1) throw new Error(`the world's ${r.kind} record was not stored: ${JSON.stringify(r)}`);
    }
    await advanceSequences(tx);
    await finishImportScope(tx, scope);
  });
  // what the format does not carry: a share carol revoked, a request's answer naming ann, the default participants
  await setMembership(store, 'ms-carol', PERSON, 'reader');
  await removeMembership(store, 'ms-carol', PERSON);
  await recordRequestOutcomes(store, [
    {
      request_id: 'r-1',
      kind: 'conversation',
      status: 'stored',
      group_id: 'ms-bob',
      message_id: null,
      duplicate: false,
      result: { user_id: PERSON },
      error_code: null,
      error_message: null,
    },
  ]);
  await store.query(
    `INSERT INTO conversation_meta_default (scene, scene_desc, name, description, conversation_created_at, default_timezone, user_details)
     VALUES ('group_chat', '{}', 'default', 'default', now(), 'UTC', $1::jsonb)`,
    [JSON.stringify({ [PERSON]: { full_name: 'Ann' }, bob: { full_name: 'Bob' } })],
  );
}
