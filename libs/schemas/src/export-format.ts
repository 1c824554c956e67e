import { z } from 'zod';
import { AccessLevel } from './access-level.js';

/**
 * memstream's export format: newline-delimited JSON, one record a line, each an object whose
 * `kind` says what it is. A header opens it, an end record (with the counts) closes it, and in
 * between every record comes after the records it refers to (a conversation before its messages,
 * an episode before its memories, a summary after the one it was built on). Bump the version for
 * any change a version-1 reader would misread; adding an optional field is not one.
 */
export const EXPORT_FORMAT = 'memstream-export';
export const EXPORT_VERSION = 1;

// Single-value enums rather than literals: the published OpenAPI (3.0) writes a literal as a
// one-value enum, and the clients' agreement tests compare the schemas as written.

/** PostgreSQL's timestamps to the microsecond, in UTC (`2025-01-01T10:00:00.123456Z`). */
const Time = z.iso.datetime({ offset: true });
const Text = z.string().max(1_000_000);
/** The longest id the export format carries (a conversation's, a message's, a memory's). */
export const EXPORT_ID_MAX = 1000;
const Id = z.string().min(1).max(EXPORT_ID_MAX);
const Seq = z.number().int().min(0);
const JsonObject = z.record(z.string(), z.unknown());

export const ExportScope = z.discriminatedUnion('kind', [
  z.object({ kind: z.enum(['server']) }),
  z.object({ kind: z.enum(['person']), userId: Id }),
]);

export const ExportHeader = z.object({
  kind: z.enum(['header']),
  format: z.enum([EXPORT_FORMAT]),
  version: z.number().int().min(EXPORT_VERSION).max(EXPORT_VERSION),
  server: z.string().meta({ description: 'What wrote the export (memstream and its version)' }),
  exportedAt: Time,
  scope: ExportScope,
});

/** Any family's conversation (an EverMemOS group, an ARK or KAOS session, a memory-service conversation). */
export const ExportConversation = z.object({
  kind: z.enum(['conversation']),
  id: Id,
  sourceApi: Id,
  groupId: Id.nullable().meta({ description: 'The group its memberships are kept under (a fork: its root)' }),
  nextSeq: Seq.meta({ description: 'The sequence number the next message gets' }),
  title: Text.nullable(),
  metadata: JsonObject,
  createdAt: Time,
  updatedAt: Time,
  deletedAt: Time.nullable(),
});

export const ExportFork = z.object({
  kind: z.enum(['fork']),
  conversationId: Id,
  forkedAtConversationId: Id.nullable(),
  forkedAtMessageId: Id.nullable(),
  sourceConversationId: Id.nullable(),
  sourceSeq: Seq.nullable(),
});

/** EverMemOS's conversation metadata of a group. */
export const ExportConversationMeta = z.object({
  kind: z.enum(['conversation_meta']),
  groupId: Id,
  id: Id,
  version: Text,
  scene: Text,
  sceneDesc: z.unknown(),
  name: Text,
  description: Text,
  conversationCreatedAt: Time,
  defaultTimezone: Text,
  userDetails: z.unknown(),
  tags: z.unknown(),
  createdAt: Time,
  updatedAt: Time,
});

export const ExportMembership = z.object({
  kind: z.enum(['membership']),
  groupId: Id,
  userId: Id,
  accessLevel: AccessLevel,
  createdAt: Time,
});

/** A membership that ended (revoked, or left): who had which level of a group, until when. */
export const ExportMembershipRemoval = z.object({
  kind: z.enum(['membership_removal']),
  id: z.number().int().min(1).meta({ description: "The server's row number" }),
  groupId: Id,
  userId: Id,
  accessLevel: AccessLevel,
  createdAt: Time,
  removedAt: Time,
});

export const ExportOwnershipTransfer = z.object({
  kind: z.enum(['ownership_transfer']),
  id: Id,
  groupId: Id,
  conversationId: Id,
  fromUserId: Id,
  toUserId: Id,
  status: z.enum(['pending', 'accepted', 'declined', 'superseded', 'withdrawn', 'cancelled']),
  createdAt: Time,
  decidedAt: Time.nullable(),
});

export const ExportMessage = z.object({
  kind: z.enum(['message']),
  conversationId: Id,
  seq: Seq,
  id: z.number().int().min(1).meta({ description: "The server's row number, which search results and provenance use" }),
  messageId: Id,
  senderId: Text,
  senderName: Text,
  role: Text,
  content: z.string(),
  createdAt: Time,
  storedAt: Time,
  referList: z.array(z.unknown()),
  metadata: JsonObject,
  sourceApi: Id,
});

export const ExportEpisode = z.object({
  kind: z.enum(['episode']),
  id: z.number().int().min(1),
  conversationId: Id,
  startSeq: Seq,
  endSeq: Seq,
  messageIds: z.array(Id).meta({ description: 'Provenance: the messages (messageId) the episode holds' }),
  startTime: Time,
  endTime: Time,
  closeReason: z.enum(['message_cap', 'token_cap', 'silence', 'idle', 'flush', 'topic']),
  status: z.enum(['pending', 'extracted', 'failed']),
  version: z.number().int().min(1),
  createdAt: Time,
  updatedAt: Time,
});

export const ExportEpisodicMemory = z.object({
  kind: z.enum(['episodic_memory']),
  id: Id,
  episodeId: z.number().int().min(1),
  conversationId: Id,
  version: z.number().int().min(1),
  userId: Id.nullable(),
  title: Text,
  content: Text,
  occurredAt: Time,
  endedAt: Time,
  messageIds: z.array(Id).meta({ description: 'Provenance: the messages (messageId) it was made from' }),
  participants: z.array(Text),
  extractor: Text,
  supersededAt: Time.nullable(),
  createdAt: Time,
});

/** The Memory Agent's rolling summary of a conversation's window of messages. */
export const ExportSummary = z.object({
  kind: z.enum(['summary']),
  id: z.number().int().min(1),
  conversationId: Id,
  text: Text,
  startSequence: Seq.meta({ description: 'Provenance: the window, first message seq' }),
  endSequence: Seq.meta({ description: 'Provenance: the window, last message seq' }),
  baseId: z.number().int().min(1).nullable().meta({ description: 'The summary this one was built on' }),
  createdAt: Time,
  updatedAt: Time,
  generationTimeMs: z.number().int().min(0).nullable(),
});

export const ExportKaosSession = z.object({
  kind: z.enum(['kaos_session']),
  agent: Id,
  sessionId: Id,
  conversationId: Id,
  appName: Text,
  userId: Text,
  ord: z.number().int().min(1),
  nextEvent: Seq,
  createdAt: Time,
  updatedAt: Time,
});

/** content and metadata are JSON texts as KAOS received them (its answers keep their spelling). */
export const ExportKaosEvent = z.object({
  kind: z.enum(['kaos_event']),
  conversationId: Id,
  seq: Seq,
  eventId: Id,
  occurredAt: Time,
  eventType: Id,
  content: z.string().meta({ description: 'JSON text' }),
  metadata: z.string().meta({ description: 'JSON text' }),
});

export const ExportArkSession = z.object({
  kind: z.enum(['ark_session']),
  sessionId: Id,
  createdAt: Time,
  completedAt: Time.nullable(),
});

/** One chunk of an ARK session's response stream, kept for replay. */
export const ExportArkChunk = z.object({
  kind: z.enum(['ark_chunk']),
  sessionId: Id,
  seq: z.number().int().min(1),
  chunk: JsonObject,
  createdAt: Time,
});

export const ExportEnd = z.object({
  kind: z.enum(['end']),
  counts: z.record(z.string(), z.number().int().min(0)).meta({ description: 'Records of each kind before it' }),
});

/** Every record of the body, the header and end included. */
export const ExportRecord = z.discriminatedUnion('kind', [
  ExportHeader,
  ExportConversation,
  ExportFork,
  ExportConversationMeta,
  ExportMembership,
  ExportMembershipRemoval,
  ExportOwnershipTransfer,
  ExportMessage,
  ExportEpisode,
  ExportEpisodicMemory,
  ExportSummary,
  ExportKaosSession,
  ExportKaosEvent,
  ExportArkSession,
  ExportArkChunk,
  ExportEnd,
]);
export type ExportRecord = z.infer<typeof ExportRecord>;
export type ExportKind = ExportRecord['kind'];
/** A record of data: neither the header nor the end. */
export type ExportDataRecord = Exclude<ExportRecord, { kind: 'header' | 'end' }>;
export type ExportDataKind = ExportDataRecord['kind'];

/** The schema of each kind, for the JSON Schema files in schemas/. */
export const EXPORT_RECORDS = Object.fromEntries(
  ExportRecord.options.map((o) => [o.shape.kind.options[0], o]),
) as unknown as Record<ExportKind, z.ZodType>;
