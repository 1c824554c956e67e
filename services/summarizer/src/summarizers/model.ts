import type { ChatModel } from '@memstream/llm';
import { renderMessage, type Summarizer } from './summarizer.js';

/**
 * Incremental summarization by a chat model: the previous summary plus only the messages after
 * it, and the instruction to keep nothing from before the window's start. The model's reply is
 * the memory text as given (plain text or JSON alike).
 */
export function modelSummarizer(model: ChatModel): Summarizer {
  return {
    incremental: true,
    name: `model:${model.model}`,
    async summarize({ start, end, previous, messages, signal }) {
      const system = [
        'You keep the running memory of a conversation for an AI agent that will continue it.',
        `Write the memory of messages #${start} to #${end}. Keep the facts, names, decisions, commitments,`,
        'dates and open questions they contain. Leave out anything that only concerns messages numbered',
        `below #${start}, even if the previous memory mentions it. Use absolute dates. Plain prose,`,
        'at most 250 words. Reply with the memory only.',
      ].join(' ');
      const parts: string[] = [];
      if (previous) parts.push(`Previous memory (messages #${previous.start} to #${previous.end}):\n${previous.text}`);
      parts.push(`New messages:\n${messages.map(renderMessage).join('\n')}`);
      const completion = await model.complete(
        [
          { role: 'system', content: system },
          { role: 'user', content: parts.join('\n\n') },
        ],
        { signal, operation: 'summarize' },
      );
      return { text: completion.text, inputTokens: completion.inputTokens };
    },
  };
}
