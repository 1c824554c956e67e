/**
 * bench:scale's text: LoCoMo's turns, resampled. The data set is read from a path given at run
 * time and never copied into the repository; without it (CI), seeded chat text of the same length
 * (20-60 words) stands in. Each generated message is one turn's text, chosen by a hash of its
 * index, so a run of any size costs no more text than the file holds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { messageText, seededRandom } from './chat-text.js';

export interface Turns {
  /** Where the text came from: `locomo` (the file) or `generated` (no file at the path). */
  readonly source: 'locomo' | 'generated';
  readonly texts: readonly string[];
}

interface LocomoSample {
  readonly conversation: Record<string, unknown>;
}

/** Every turn's text in the LoCoMo file at `path`, or 2,000 generated ones when there is none. */
export function loadTurns(path: string | undefined): Turns {
  if (path && existsSync(path)) {
    const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
    const texts: string[] = [];
    for (const { conversation } of samples)
      for (const [key, session] of Object.entries(conversation))
        if (/^session_\d+$/.test(key) && Array.isArray(session))
          for (const turn of session as { text?: unknown }[])
            if (typeof turn.text === 'string' && turn.text.trim() !== '') texts.push(cleanText(turn.text));
    if (texts.length > 0) return { source: 'locomo', texts };
  }
  const rnd = seededRandom(47);
  return {
    source: 'generated',
    texts: Array.from({ length: 2000 }, (_, i) => messageText(rnd, i % 2 === 0 ? 'user' : 'assistant')),
  };
}

/** COPY's text format and the bench's tab-separated rows take no tabs, newlines or backslashes. */
function cleanText(text: string): string {
  return text.replace(/[\t\n\r\\]+/g, ' ').trim();
}

/** Conversations the bulk load made (all complete): a pass may write into them instead of fresh ones. */
export interface Loaded {
  readonly conversations: number;
  readonly perConversation: number;
}

const spread = (i: number) => Math.imul(i + 1, 2654435761) >>> 0;

/**
 * Messages for one measured pass (`tag` keeps ids and conversations apart from every other pass),
 * one turn's text each: into `groups` fresh conversations of two speakers, or, given `loaded`,
 * into the loaded ones, each right after its last message (no silence long enough to close an
 * episode, so no write waits for an extractor this bench does not run).
 */
export class PassWorkload {
  private readonly baseTime = Date.parse('2026-06-01T08:00:00Z');

  constructor(
    private readonly tag: string,
    private readonly groups: number,
    private readonly turns: Turns,
    private readonly loaded?: Loaded,
  ) {}

  groupOf(i: number): string {
    return this.loaded ? `scale-g${spread(i) % this.loaded.conversations}` : `scale-${this.tag}-g${i % this.groups}`;
  }

  /** Every conversation the pass writes into (fresh ones only), for counting what was stored. */
  groupIds(total: number): string[] {
    return Array.from({ length: Math.min(total, this.groups) }, (_, g) => `scale-${this.tag}-g${g}`);
  }

  /** The body of `POST /api/v1/memories`, and a Kafka record's `data`. */
  message(i: number) {
    const content = this.turns.texts[spread(i) % this.turns.texts.length]!;
    if (this.loaded) {
      const c = spread(i) % this.loaded.conversations;
      const at = Date.parse('2025-01-01T00:00:00Z') + c * 3_600_000 + this.loaded.perConversation * 60_000;
      return {
        group_id: `scale-g${c}`,
        message_id: `${this.tag}_${i}`,
        create_time: new Date(at + (i % 3000) * 1000).toISOString(),
        sender: i % 2 === 0 ? `a${Math.floor(c / 10)}` : `b${c}`,
        content,
      };
    }
    const speaker = Math.floor(i / this.groups) % 2 === 0 ? 'a' : 'b';
    return {
      group_id: this.groupOf(i),
      message_id: `${this.tag}_${i}`,
      create_time: new Date(this.baseTime + i * 1000).toISOString(),
      sender: `${speaker}-${this.tag}-${i % this.groups}`,
      content,
    };
  }

  /** A record as an outside producer writes it to the input topic: the public envelope. */
  kafkaRecord(i: number): { key: string; value: string } {
    const data = this.message(i);
    const event = {
      id: `scale-${this.tag}-${i}`,
      type: 'group_chat.message.received',
      occurred_at: new Date().toISOString(),
      source: 'bench',
      data,
    };
    return { key: data.group_id, value: JSON.stringify(event) };
  }
}
