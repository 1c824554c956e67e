import { z } from 'zod';
import { AppError } from '@memstream/errors';
import type { ChatMessage, ChatModel } from '@memstream/llm';
import type { ExtractedMemory } from '@memstream/store';
import { formatSpan, validZone } from '../dates.js';
import { transcriptOf } from '../transcript.js';
import { participantsOf, sceneOf, type Extractor } from './extractor.js';

const Reply = z.object({
  title: z.string().trim().min(1).max(200),
  episode: z.string().trim().min(1).max(8_000),
  participants: z
    .array(z.object({ user_id: z.string().min(1), memory: z.string().trim().min(1).max(4_000) }))
    .default([]),
});

/**
 * Extraction by a chat model: one call per episode for the group's narrative and, in the
 * `group_chat` scene, one memory per participant. The reply must be the JSON object described;
 * one that does not parse or validate is asked for again with the problem stated (up to
 * `repairAttempts` times), because models usually fix what they are told. Transport failures
 * (429, 5xx, timeouts) are retried by the model client; what still fails is thrown, and the
 * worker parks the episode to try again later.
 */
export function modelExtractor(model: ChatModel, options: { repairAttempts: number }): Extractor {
  return {
    name: `model:${model.model}`,
    async extract({ episode, messages, meta, signal }) {
      const zone = validZone(meta?.default_timezone);
      const people = participantsOf(messages);
      const perParticipant = sceneOf(meta) === 'group_chat';
      const known = new Set(people.map((p) => p.id));
      const system = [
        'You turn one episode of a conversation into long-term memories for an AI agent.',
        'Write in the third person, with absolute dates and times (never "yesterday" or "last week":',
        'resolve them against the message times), and keep names, places, numbers, decisions and plans.',
        'Reply with ONE JSON object and nothing else:',
        '{"title": "<a short title>", "episode": "<a narrative of the episode, at most 200 words>",',
        perParticipant
          ? '"participants": [{"user_id": "<id as given>", "memory": "<what this episode tells about this person, at most 80 words>"}]}'
          : '"participants": []}',
        perParticipant ? 'Give one participants entry per person who spoke, using the ids shown in brackets.' : '',
      ]
        .filter((l) => l !== '')
        .join(' ');
      const user = [
        // a group on the default config has no name of its own ('')
        `Group: ${meta?.name || episode.conversation_id}`,
        `Episode ${formatSpan(episode.start_time, episode.end_time, zone)}; participants: ${people.map((p) => `${p.name} [${p.id}]`).join(', ')}.`,
        '',
        transcriptOf(messages, zone),
      ].join('\n');
      const conversation: ChatMessage[] = [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ];
      for (let attempt = 0; ; attempt++) {
        const completion = await model.complete(conversation, { signal });
        const problem = problemOf(completion.text, known);
        if (typeof problem !== 'string') {
          const memories: ExtractedMemory[] = [{ userId: null, title: problem.title, content: problem.episode }];
          if (perParticipant) {
            const seen = new Set<string>();
            for (const p of problem.participants) {
              if (seen.has(p.user_id)) continue;
              seen.add(p.user_id);
              const name = people.find((x) => x.id === p.user_id)?.name ?? p.user_id;
              memories.push({ userId: p.user_id, title: `${name}: ${problem.title}`, content: p.memory });
            }
          }
          return memories;
        }
        if (attempt >= options.repairAttempts) {
          throw new AppError(
            'DEPENDENCY_UNAVAILABLE',
            `model ${model.model} gave no valid extraction after ${attempt + 1} replies: ${problem}`,
          );
        }
        conversation.push(
          { role: 'assistant', content: completion.text },
          { role: 'user', content: `That reply was not usable: ${problem}. Reply again with only the JSON object.` },
        );
      }
    },
  };
}

/** The validated reply, or what is wrong with it, in words a model can act on. */
function problemOf(text: string, known: ReadonlySet<string>): z.infer<typeof Reply> | string {
  let json: unknown;
  try {
    json = JSON.parse(stripFence(text));
  } catch {
    return 'it is not valid JSON';
  }
  const parsed = Reply.safeParse(json);
  if (!parsed.success) {
    return parsed.error.issues.map((i) => `${i.path.join('.') || 'the object'}: ${i.message}`).join('; ');
  }
  const strangers = parsed.data.participants.map((p) => p.user_id).filter((id) => !known.has(id));
  if (strangers.length > 0)
    return `participants.user_id must be one of ${[...known].join(', ')}, not ${strangers.join(', ')}`;
  return parsed.data;
}

/** Models often wrap JSON in a Markdown code fence despite being asked not to. */
export function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return (fenced ? fenced[1]! : text).trim();
}
