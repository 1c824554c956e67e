import { z } from 'zod';
import { rejectNul } from './group-chat-message.js';
import { SafeId } from './ids.js';

/**
 * ARK session ids travel in URLs (`/stream/{id}`), percent-encoded: the common id rule, which
 * admits the free-form ids ARK's clients send (`team/alpha:chat 1`, Kubernetes names with dots).
 */
export const ArkSessionId = SafeId;

/**
 * One OpenAI chat message, kept whole: any role, `content` a string, an array of parts or null
 * (with `tool_calls`), and whatever other keys the client sent (`name`, `tool_call_id`, ...).
 */
export const ArkMessage = z.object({ role: z.string().min(1).max(64) }).loose();
export type ArkMessage = z.infer<typeof ArkMessage>;

/** `POST /messages` of ARK's memory API: one batch, stored whole and in order. */
export const ArkMessageBatch = z
  .object({
    session_id: ArkSessionId,
    query_id: z.string().max(255).optional(),
    messages: z.array(ArkMessage).min(1, { message: 'must not be empty' }),
  })
  .superRefine(rejectNul);
export type ArkMessageBatch = z.infer<typeof ArkMessageBatch>;

/** The text a message contributes to search and summaries: its string content, or its text parts. */
export function textOf(message: ArkMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .filter((t) => t !== '')
      .join('\n');
  }
  return '';
}
