/**
 * The ARK benchmark's messages: OpenAI chat messages of about 200 characters, alternating user
 * and assistant, spread over sessions whose names carry the run id (a fresh database per run,
 * but readable names help when a run is inspected by hand).
 */
const FILLER =
  'Could you move the design review to Thursday afternoon and send the updated agenda to the team, ' +
  'including the notes on the storage migration and the open questions about the rollout window? ';

export const MESSAGE_CHARS = 200;

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface ArkBatch {
  readonly session_id: string;
  readonly query_id: string;
  readonly messages: readonly ChatMessage[];
}

/** `head` then filler, exactly MESSAGE_CHARS long (or head alone if it is longer). */
export function contentOf(head: string): string {
  if (head.length >= MESSAGE_CHARS) return head;
  const pad = FILLER.repeat(Math.ceil(MESSAGE_CHARS / FILLER.length));
  return head + pad.slice(0, MESSAGE_CHARS - head.length);
}

export class ArkWorkload {
  constructor(private readonly runId: string) {}

  sessionOf(pass: string, n: number): string {
    return `bench_${this.runId}_${pass}_s${n}`;
  }

  /** Request `i` of a throughput pass: `size` messages for session i mod `sessions`. */
  batch(pass: string, i: number, size: number, sessions: number): ArkBatch {
    const messages = Array.from(
      { length: size },
      (_, k): ChatMessage => ({
        role: (i + k) % 2 === 0 ? 'user' : 'assistant',
        content: contentOf(`${pass} #${i}.${k}: `),
      }),
    );
    return { session_id: this.sessionOf(pass, i % sessions), query_id: `${pass}_q${i}`, messages };
  }

  /** A single message whose content starts with a token the live-delivery pass can match on. */
  liveBatch(session: string, token: string, i: number): ArkBatch {
    return {
      session_id: session,
      query_id: `live_q${i}`,
      messages: [{ role: i % 2 === 0 ? 'user' : 'assistant', content: contentOf(`${token} `) }],
    };
  }
}
