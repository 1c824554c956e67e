import OpenAI from 'openai';
import { AppError, isAppError, upstreamError } from '@memstream/errors';
import type { Metrics } from '@memstream/metrics';
import { measureModelCall } from './model-call-metrics.js';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface Completion {
  readonly text: string;
  /** As the server reports them; null when it does not (some local servers). */
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
}

/** One chat model behind any OpenAI-compatible server (OpenAI, vLLM, Ollama, a test double). */
export interface ChatModel {
  readonly model: string;
  /** `operation` names the caller's purpose in the model-call metrics (default `chat`). */
  complete(
    messages: readonly ChatMessage[],
    options?: { signal?: AbortSignal; operation?: string },
  ): Promise<Completion>;
}

export interface ChatModelSettings {
  /** Unset means OpenAI itself. */
  readonly baseUrl: string | undefined;
  /** Local servers take none; the client insists on a string, so a placeholder is sent. */
  readonly apiKey: string | undefined;
  readonly model: string;
  readonly timeoutMs: number;
  /** Retries of 429, 5xx, connection errors and timeouts, with backoff (honouring Retry-After). */
  readonly maxRetries: number;
  /** Where each call's duration, tokens and failures are recorded. */
  readonly metrics: Metrics;
}

/**
 * Chat completions through the openai package, the API every OpenAI-compatible server speaks.
 * The client retries what is worth retrying; what still fails comes out as an AppError that says
 * whether trying later can help (429, 5xx, timeouts: yes; a 400 for a bad request: no).
 */
export function createChatModel(settings: ChatModelSettings): ChatModel {
  const client = new OpenAI({
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    apiKey: settings.apiKey ?? 'not-needed',
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
  });
  return {
    model: settings.model,
    async complete(messages, options) {
      // The client adds an abort listener to the signal of every request and never removes it;
      // callers pass long-lived signals (a worker's), so each call gets its own, linked one.
      const call = new AbortController();
      const forward = () => call.abort(options?.signal?.reason);
      options?.signal?.addEventListener('abort', forward, { once: true });
      if (options?.signal?.aborted) forward();
      const request = async (): Promise<Completion> => {
        const response = await client.chat.completions.create(
          { model: settings.model, messages: messages.map((m) => ({ role: m.role, content: m.content })) },
          { signal: call.signal },
        );
        const text = response.choices[0]?.message?.content;
        if (typeof text !== 'string' || text.trim() === '') {
          throw new AppError('DEPENDENCY_UNAVAILABLE', `model ${settings.model} returned no text`);
        }
        return {
          text,
          inputTokens: response.usage?.prompt_tokens ?? null,
          outputTokens: response.usage?.completion_tokens ?? null,
        };
      };
      try {
        return await measureModelCall(
          settings.metrics,
          { model: settings.model, operation: options?.operation ?? 'chat' },
          request,
          (c) => ({
            promptTokens: c.inputTokens,
            completionTokens: c.outputTokens,
          }),
        );
      } catch (err) {
        throw isAppError(err) ? err : upstreamError(err, 'model');
      } finally {
        options?.signal?.removeEventListener('abort', forward);
      }
    },
  };
}
