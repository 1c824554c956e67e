import { z } from 'zod';
import type { ChatModel } from '@memstream/llm';
import type { CanonicalMessage } from '@memstream/schemas';
import { stripFence } from './extractors/model.js';
import { transcriptOf } from './transcript.js';

const Verdict = z.object({ ended: z.boolean(), last: z.number().int().min(1).nullable().optional() });

/**
 * Asks a model whether an open episode holds a finished topic, and where it ends: the number of
 * the topic's last message, so the episode closes there and the rest stays open. Any reply that
 * does not say so clearly counts as "not ended": a missed boundary only delays an episode until
 * a cap, silence or flush closes it, while a wrong one would split a topic.
 */
export async function topicEnd(
  model: ChatModel,
  messages: readonly CanonicalMessage[],
  zone: string,
  signal: AbortSignal,
): Promise<number | undefined> {
  const system = [
    'You segment a conversation into topical episodes.',
    'Given the messages of the current, still open episode, decide whether an earlier topic has clearly',
    'ended and a new one begun (or the conversation has clearly wrapped up).',
    'Reply with ONE JSON object: {"ended": true, "last": <number of the last message of the finished topic>}',
    'or {"ended": false}.',
  ].join(' ');
  const completion = await model.complete(
    [
      { role: 'system', content: system },
      { role: 'user', content: transcriptOf(messages, zone) },
    ],
    { signal },
  );
  let json: unknown;
  try {
    json = JSON.parse(stripFence(completion.text));
  } catch {
    return undefined;
  }
  const verdict = Verdict.safeParse(json);
  if (!verdict.success || !verdict.data.ended || verdict.data.last == null) return undefined;
  return verdict.data.last <= messages.length ? verdict.data.last : undefined;
}
