import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConversationMeta, GroupChatMessage, conversationIdOf } from '@memstream/schemas';
import { locomoToGroupChat } from './locomo.js';

/** One conversation of a GroupChatFormat file, validated, with every message carrying its group. */
export interface Conversation {
  /** Position in the file (0 for a file holding a single document). */
  readonly index: number;
  readonly meta: ConversationMeta;
  readonly messages: readonly GroupChatMessage[];
}

export type ReadResult =
  | { readonly ok: true; readonly conversations: Conversation[] }
  | { readonly ok: false; readonly errors: string[] };

export type InputFormat = 'groupchat' | 'locomo';

/**
 * The document around the payloads. The payload schemas come from @memstream/schemas, so a file
 * that validates here is exactly what the HTTP API and the input topic accept; messages are
 * checked one by one further down, after they inherit their group from the metadata.
 */
const Document = z.object({
  version: z.string().min(1),
  conversation_meta: ConversationMeta,
  conversation_list: z.array(z.unknown()),
});

export async function readGroupChatFile(path: string, format: InputFormat): Promise<ReadResult> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    return {
      ok: false,
      errors: [`${path}: ${err instanceof SyntaxError ? `not JSON: ${err.message}` : (err as Error).message}`],
    };
  }
  if (format === 'locomo') {
    const converted = locomoToGroupChat(json);
    if (converted.errors.length > 0) return { ok: false, errors: converted.errors };
    json = converted.documents;
  }
  return validateGroupChat(json);
}

/** Validates a whole file before anything is sent, collecting every error rather than stopping at the first. */
export function validateGroupChat(json: unknown): ReadResult {
  const documents = Array.isArray(json) ? json : [json];
  const errors: string[] = [];
  const conversations: Conversation[] = [];
  // Duplicates are found across documents too: two documents of one group share its message ids.
  const seen = new Map<string, string>();

  documents.forEach((raw, index) => {
    const where = `conversation ${index}`;
    const doc = Document.safeParse(raw);
    if (!doc.success) errors.push(...describeIssues(where, raw, doc.error));
    const meta = doc.success ? doc.data.conversation_meta : undefined;
    const list =
      isObject(raw) && Array.isArray(raw['conversation_list']) ? (raw['conversation_list'] as unknown[]) : [];
    const rawMeta = isObject(raw) && isObject(raw['conversation_meta']) ? raw['conversation_meta'] : {};
    const messages: GroupChatMessage[] = [];

    list.forEach((rawMessage, m) => {
      const id =
        isObject(rawMessage) && typeof rawMessage['message_id'] === 'string' ? ` (${rawMessage['message_id']})` : '';
      const at = `${where}, message ${m}${id}`;
      const parsed = GroupChatMessage.safeParse(inheritGroup(rawMessage, rawMeta));
      if (!parsed.success) {
        errors.push(...describeIssues(at, rawMessage, parsed.error));
        return;
      }
      const message = parsed.data;
      if (typeof rawMeta['group_id'] === 'string' && message.group_id !== rawMeta['group_id']) {
        errors.push(
          `${at}: invalid field group_id: ${message.group_id} differs from conversation_meta.group_id ${String(rawMeta['group_id'])}`,
        );
        return;
      }
      const key = `${conversationIdOf(message)}\u0000${message.message_id}`;
      const first = seen.get(key);
      if (first !== undefined) {
        errors.push(
          `${at}: duplicate message_id ${message.message_id} in group ${conversationIdOf(message)}, first at ${first}`,
        );
        return;
      }
      seen.set(key, `${where}, message ${m}`);
      messages.push(message);
    });

    if (meta) conversations.push({ index, meta, messages });
  });

  return errors.length > 0 ? { ok: false, errors } : { ok: true, conversations };
}

/** Messages of a file belong to its conversation: group_id and group_name come from the metadata when absent. */
function inheritGroup(message: unknown, meta: Record<string, unknown>): unknown {
  if (!isObject(message)) return message;
  return {
    ...message,
    ...(message['group_id'] === undefined && typeof meta['group_id'] === 'string'
      ? { group_id: meta['group_id'] }
      : {}),
    ...(message['group_name'] === undefined && typeof meta['name'] === 'string' ? { group_name: meta['name'] } : {}),
  };
}

function describeIssues(where: string, raw: unknown, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    if (issue.path.length === 0) return `${where}: ${issue.message}`;
    const field = fieldName(issue.path);
    const missing = valueAt(raw, issue.path) === undefined && issue.code === 'invalid_type';
    return missing ? `${where}: missing required field ${field}` : `${where}: invalid field ${field}: ${issue.message}`;
  });
}

function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
