/**
 * The response resumer: an agent records the tokens of the response it is streaming for a
 * conversation; a reader replays it from the start and follows it live until it ends, so a client
 * that lost its connection (to any replica) misses nothing. One response per conversation at a
 * time; an ended one is kept for `retentionS` so late readers still get it whole.
 *
 * Everything a recorder sends is held (in this process or in Redis) until the response ends and
 * its retention passes, so every dimension a caller can grow is bounded (ResponseLimits): a
 * response's bytes and tokens, the responses one caller has in progress, and the silence after
 * which an unfinished response is forgotten. Past a bound the call is refused and nothing of it
 * is kept.
 */
export type ResponseEvent =
  | { readonly type: 'token'; readonly text: string }
  | { readonly type: 'done' }
  | { readonly type: 'cancelled' };

export type ResponseState = 'none' | 'in_progress' | 'done' | 'cancelled';

export interface ResponseLimits {
  /** UTF-8 bytes of token text in one response. */
  readonly maxBytes: number;
  /** Tokens in one response. */
  readonly maxTokens: number;
  /** Responses one person (or the local user) may have in progress at once. */
  readonly maxInProgressPerPerson: number;
  /** Responses one agent key may have in progress at once: an agent answers many people's conversations. */
  readonly maxInProgressPerAgent: number;
  /** An unfinished response nobody recorded to for this long is forgotten (its readers' streams end). */
  readonly idleS: number;
  /**
   * In the in-process resumer only: what every held response (ended ones in their retention
   * included) may cost this process in all, its text plus TOKEN_COST per token; 0 is an eighth of
   * the process's heap limit. Redis bounds its own memory (maxmemory); there each response's keys
   * expire instead.
   */
  readonly memoryBudgetBytes: number;
}

/** The default bounds (the API's settings override them: RESPONSE_MAX_BYTES and the rest). */
export const DEFAULT_RESPONSE_LIMITS: ResponseLimits = {
  maxBytes: 1024 * 1024,
  maxTokens: 100_000,
  maxInProgressPerPerson: 8,
  maxInProgressPerAgent: 1_000,
  idleS: 300,
  memoryBudgetBytes: 0,
};

/** What one held token costs besides its text, counted against memoryBudgetBytes (an object, an array slot). */
export const TOKEN_COST = 64;

/** Who records: a caller has a bounded number of responses in progress at a time (see ResponseLimits). */
export interface ResponseRecorder {
  /** The caller, the same on every replica: `person:<id>`, `agent:<name>`, `local`. */
  readonly key: string;
  readonly agent: boolean;
}

/** How many responses in progress `recorder` may have. */
export function inProgressLimitOf(limits: ResponseLimits, recorder: ResponseRecorder): number {
  return recorder.agent ? limits.maxInProgressPerAgent : limits.maxInProgressPerPerson;
}

/** Why a record call was refused; the response stays as it was before the call. */
export type ResponseRefusal =
  | { readonly refused: 'bytes' | 'tokens' | 'in_progress'; readonly limit: number }
  | { readonly refused: 'busy'; readonly limit: number };

export type RecordResult = 'recorded' | 'cancelled' | ResponseRefusal;

export interface ResponseStreams {
  /**
   * Adds tokens (and with `done`, ends the response); a new response starts when none is in
   * progress, counted against `recorder`'s responses in progress until it ends.
   */
  record(
    conversationId: string,
    tokens: readonly string[],
    done: boolean,
    recorder: ResponseRecorder,
  ): Promise<RecordResult>;
  /** Ends the response in progress as cancelled; false when none is in progress. */
  cancel(conversationId: string): Promise<boolean>;
  state(conversationId: string): Promise<ResponseState>;
  /** Every event of the current (or last) response from the start, then live ones, until it ends or `signal` aborts. */
  follow(conversationId: string, onEvent: (event: ResponseEvent) => void, signal: AbortSignal): Promise<void>;
  /** Forgets the conversations' responses, ended or not (their conversations were purged). */
  discard(conversationIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** The UTF-8 bytes of the tokens' text, as the bounds count them. */
export function bytesOf(tokens: readonly string[]): number {
  let bytes = 0;
  for (const text of tokens) bytes += Buffer.byteLength(text);
  return bytes;
}
