import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible server on loopback, standing in for the paid model in tests and benchmarks.
 * It answers `POST /v1/chat/completions` with a summary it derives from the request (the `#seq`
 * numbers it saw), counts tokens the way a tokenizer roughly would (words and punctuation), and
 * answers `POST /v1/embeddings` with `fakeEmbedding` of each input. It can be told to fail the next
 * N calls (of either kind) with a status, or to hold calls until released.
 */
export interface ModelServer {
  readonly baseUrl: string;
  /** Every request's messages, and its counted input tokens, in arrival order. */
  readonly calls: Array<{ messages: Array<{ role: string; content: string }>; inputTokens: number }>;
  /** The messages of every chat call as it arrives, held or not (calls has only those answered). */
  readonly arrived: Array<Array<{ role: string; content: string }>>;
  /** Fails the next `count` calls (those `when` picks, if given) with `status`; failed calls are counted in `failed`. */
  failNext(
    count: number,
    status?: number,
    when?: (messages: Array<{ role: string; content: string }>) => boolean,
  ): void;
  readonly failed: { count: number };
  /** Answers with what `reply` returns for a call's messages instead of the summary (unset: back to the summary). */
  replyWith(reply: ((messages: Array<{ role: string; content: string }>) => string) | undefined): void;
  /** Every embeddings request answered (failed ones are not), in arrival order. */
  readonly embeddingCalls: Array<{ input: string[]; dimensions: number | undefined }>;
  /**
   * From now on, an embeddings request holding an input of more than `tokens` (countTokens) is
   * refused with 400, as OpenAI refuses one past a model's context (unset: no limit).
   */
  limitEmbeddingInput(tokens: number | undefined): void;
  hold(): void;
  /** Embeddings requests being held now (so a test knows its consumer is stalled in one). */
  heldEmbeddings(): number;
  release(): void;
  close(): Promise<void>;
}

export function countTokens(text: string): number {
  return (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;
}

export async function startModelServer(): Promise<ModelServer> {
  const calls: ModelServer['calls'] = [];
  const arrived: ModelServer['arrived'] = [];
  const embeddingCalls: ModelServer['embeddingCalls'] = [];
  let failures: {
    count: number;
    status: number;
    when?: ((messages: Array<{ role: string; content: string }>) => boolean) | undefined;
  } = { count: 0, status: 500 };
  const failed = { count: 0 };
  let held: Array<() => void> | undefined;
  let heldEmbeddings = 0;
  let replier: ((messages: Array<{ role: string; content: string }>) => string) | undefined;
  let inputLimit: number | undefined;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await readBody(req)) as {
        model: string;
        messages: Array<{ role: string; content: string }>;
      };
      const route = req.method === 'POST' ? req.url?.match(/\/(chat\/completions|embeddings)$/)?.[1] : undefined;
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      if (route === 'chat/completions') arrived.push(body.messages);
      if (held) {
        if (route === 'embeddings') heldEmbeddings++;
        await new Promise<void>((resolve) => held!.push(resolve));
        if (route === 'embeddings') heldEmbeddings--;
      }
      if (failures.count > 0 && (!failures.when || (body.messages !== undefined && failures.when(body.messages)))) {
        failures.count--;
        failed.count++;
        // A rate limit says when to come back, briefly, so clients that retry do it at test speed.
        res.writeHead(failures.status, {
          'content-type': 'application/json',
          ...(failures.status === 429 ? { 'retry-after-ms': '10' } : {}),
        });
        res.end(JSON.stringify({ error: { message: 'induced failure', type: 'server_error' } }));
        return;
      }
      if (route === 'embeddings' && inputLimit !== undefined) {
        const { input } = body as unknown as EmbeddingsRequest;
        const longest = Math.max(...(typeof input === 'string' ? [input] : input).map(countTokens));
        if (longest > inputLimit) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: {
                message: `This model's maximum context length is ${inputLimit} tokens, however you requested ${longest} tokens.`,
                type: 'invalid_request_error',
              },
            }),
          );
          return;
        }
      }
      if (route === 'embeddings') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(embeddingsReply(body as unknown as EmbeddingsRequest, embeddingCalls)));
        return;
      }
      const input = body.messages.map((m) => m.content).join('\n');
      const inputTokens = countTokens(input);
      calls.push({ messages: body.messages, inputTokens });
      const seqs = [...input.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1]));
      const text = replier
        ? replier(body.messages)
        : `Summary covering messages #${Math.min(...seqs)}-#${Math.max(...seqs)} (${seqs.length} new).`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: inputTokens,
            completion_tokens: countTokens(text),
            total_tokens: inputTokens + countTokens(text),
          },
        }),
      );
    })().catch(() => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    arrived,
    embeddingCalls,
    failNext: (count, status = 500, when) => void (failures = { count, status, when }),
    failed,
    replyWith: (reply) => void (replier = reply),
    limitEmbeddingInput: (tokens) => void (inputLimit = tokens),
    hold: () => void (held ??= []),
    heldEmbeddings: () => heldEmbeddings,
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Vectors a fake model gives without any model: distinct per text, never unit length, as many dimensions as asked. */
export const FAKE_EMBEDDING_DIMENSIONS = 12;

export function fakeEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return Array.from({ length: dimensions }, (_, i) => {
    h = Math.imul(h ^ (i + 1), 0x01000193);
    return ((h >>> 0) % 1000) / 100 + 0.1;
  });
}

interface EmbeddingsRequest {
  model: string;
  input: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
}

/**
 * The items come back in reverse order, each with its input's index: the API allows any order,
 * and a client that goes by position rather than index gets caught.
 */
function embeddingsReply(body: EmbeddingsRequest, embeddingCalls: ModelServer['embeddingCalls']): object {
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  embeddingCalls.push({ input, dimensions: body.dimensions });
  const data = input.map((text, index) => {
    const vector = fakeEmbedding(text, body.dimensions);
    const embedding =
      body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = input.reduce((sum, text) => sum + countTokens(text), 0);
  return {
    object: 'list',
    model: body.model,
    data: data.reverse(),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
