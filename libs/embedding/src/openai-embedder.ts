import OpenAI from 'openai';
import { AppError, upstreamError } from '@memstream/errors';
import type { Logger } from '@memstream/logging';
import { batches } from './batches.js';
import type { Embedder } from './embedder.js';
import { toUnitVector } from './unit-vector.js';

export interface OpenAiEmbedderSettings {
  /** Unset means OpenAI itself. */
  readonly baseUrl: string | undefined;
  /** Local servers take none; the client insists on a string, so a placeholder is sent. */
  readonly apiKey: string | undefined;
  readonly model: string;
  /** Sent as `dimensions` (models that can shorten their vectors); unset, the model's own size, learned at creation. */
  readonly dimensions: number | undefined;
  readonly batchSize: number;
  readonly timeoutMs: number;
  /** Retries of 429, 5xx, connection errors and timeouts, with backoff (honouring Retry-After). */
  readonly maxRetries: number;
}

/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` server (OpenAI, vLLM, Ollama, TEI, a
 * test double). Texts go in requests of `batchSize`, one after another, so a large call neither
 * trips a server's input limit nor floods it. Vectors are normalised here: OpenAI's already are,
 * but not every server's model is.
 *
 * `dimension` must be known before the first text is embedded (a pgvector column is typed by it),
 * so without EMBEDDING_DIMENSIONS one probe text is embedded at creation to learn it. That makes
 * start-up fail fast on an unreachable server or a wrong model name, which is also the point.
 */
export async function createOpenAiEmbedder(settings: OpenAiEmbedderSettings, log: Logger): Promise<Embedder> {
  const client = new OpenAI({
    ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
    apiKey: settings.apiKey ?? 'not-needed',
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
  });

  const request = async (input: string[], expected: number | undefined): Promise<Float32Array[]> => {
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await client.embeddings.create({
        model: settings.model,
        input,
        // Asked for explicitly: the client would otherwise ask for base64, which not every server speaks.
        encoding_format: 'float',
        ...(settings.dimensions !== undefined ? { dimensions: settings.dimensions } : {}),
      });
    } catch (err) {
      throw new RequestFailed(err);
    }
    // Servers answer with an index per input; OpenAI keeps them in order, but nothing promises it.
    const vectors: Array<Float32Array | undefined> = new Array(input.length);
    for (const item of response.data) vectors[item.index] = Float32Array.from(item.embedding);
    return vectors.map((vector, i) => {
      if (!vector || (expected !== undefined && vector.length !== expected)) {
        throw new AppError(
          'DEPENDENCY_UNAVAILABLE',
          `embedding model ${settings.model} answered input ${i} with ${vector ? `${vector.length} dimensions, expected ${expected}` : 'nothing'}`,
        );
      }
      return toUnitVector(vector);
    });
  };

  /**
   * One request, or, when the server refuses its input and some text in it is long, each text
   * alone, a refused long one cut in half until the model takes it: a model reads a bounded number
   * of tokens (OpenAI's 8,191), refuses a longer input (400), and would refuse it on every retry, so
   * the message would never get a vector. The local model embeds such a text from its first tokens;
   * this does the same, in halves, since only the server knows its tokenizer.
   */
  const embedBatch = async (batch: string[], expected: number | undefined): Promise<Float32Array[]> => {
    try {
      return await request(batch, expected);
    } catch (err) {
      if (!refusedInput(err) || batch.every((text) => text.length <= SHORTEST_CUT)) throw mapped(err);
    }
    const out: Float32Array[] = [];
    for (const text of batch) {
      let kept = text;
      for (;;) {
        try {
          out.push((await request([kept], expected))[0]!);
          break;
        } catch (err) {
          if (!refusedInput(err) || kept.length <= SHORTEST_CUT) throw mapped(err);
          kept = firstHalf(kept);
        }
      }
      if (kept.length < text.length) {
        log.warn(
          { model: settings.model, chars: text.length, keptChars: kept.length },
          'a text past the embedding model input limit was embedded from its beginning',
        );
      }
    }
    return out;
  };

  const dimension = settings.dimensions ?? (await embedBatch(['dimension probe'], undefined))[0]!.length;
  log.info(
    { model: settings.model, dimension, baseUrl: settings.baseUrl ?? 'https://api.openai.com/v1' },
    'openai-compatible embedder ready',
  );

  return {
    // A model shortened to other dimensions gives other vectors, so the id says which.
    model: `openai/${settings.model}${settings.dimensions !== undefined ? `@${settings.dimensions}` : ''}`,
    dimension,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, settings.batchSize)) out.push(...(await embedBatch(batch, dimension)));
      return out;
    },
    close: async () => {},
  };
}

/** Texts this short are never cut: a refusal of one is about something else than its length. */
const SHORTEST_CUT = 256;

/** A failed request, with the client's error as it came (mapped to the caller's by `mapped`). */
class RequestFailed extends Error {
  constructor(readonly original: unknown) {
    super('embedding request failed');
  }
}

/** The server refused what was sent (not a rate limit, a conflict or its own trouble). */
function refusedInput(err: unknown): boolean {
  const status = err instanceof RequestFailed ? (err.original as { status?: unknown }).status : undefined;
  return status === 400 || status === 413 || status === 422;
}

function mapped(err: unknown): unknown {
  return err instanceof RequestFailed ? upstreamError(err.original, 'embedding model') : err;
}

/** The first half of a text, never splitting a surrogate pair. */
function firstHalf(text: string): string {
  let end = Math.floor(text.length / 2);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}
