import type { CanonicalMessage } from '@memstream/schemas';
import type { Summarizer } from './summarizer.js';

const PER_MESSAGE_CHARS = 240;

/**
 * The summary without a model, so the embedded default works offline: who spoke, when, and the
 * opening of each message of the window, in order. It is rebuilt from the window every time
 * (never from the previous summary), which is what guarantees that nothing before the window's
 * start survives. Deterministic: the same window gives the same text.
 */
export const offlineSummarizer: Summarizer = {
  incremental: false,
  name: 'offline-extractive',
  async summarize({ start, end, messages }) {
    const inWindow = messages.filter((m) => m.seq >= start && m.seq <= end);
    if (inWindow.length === 0) return { text: `No messages in ${start}-${end}.`, inputTokens: null };
    const first = inWindow[0]!;
    const last = inWindow[inWindow.length - 1]!;
    const participants = [...new Set(inWindow.map((m) => m.sender_name))];
    const lines = inWindow.map((m) => `#${m.seq} ${m.sender_name}: ${opening(m)}`);
    const header = `Messages ${start}-${end}, ${first.created_at} to ${last.created_at}; participants: ${participants.join(', ')}.`;
    return { text: [header, ...lines].join('\n'), inputTokens: null };
  },
};

/** The first sentences of a message, whitespace collapsed, cut at a word near the limit. */
function opening(m: CanonicalMessage): string {
  const text = m.content.replace(/\s+/g, ' ').trim();
  if (text.length <= PER_MESSAGE_CHARS) return text;
  const cut = text.slice(0, PER_MESSAGE_CHARS);
  const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
  if (sentenceEnd > PER_MESSAGE_CHARS / 2) return cut.slice(0, sentenceEnd + 1);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > 0 ? space : PER_MESSAGE_CHARS)}…`;
}
