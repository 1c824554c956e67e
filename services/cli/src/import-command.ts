import { busLogger } from './bus-log.js';
import { readGroupChatFile, type InputFormat } from './group-chat-file.js';
import { Progress, type ProgressSink } from './progress.js';
import { sendOverHttp, type AccessRefused, type Credential, type HttpOutcome } from './send-http.js';
import { sendOverKafka } from './send-kafka.js';
import { Tally } from './tally.js';

export interface Io {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: ProgressSink;
}

export interface ImportOptions {
  readonly input: string;
  readonly format: InputFormat;
  readonly validateOnly: boolean;
  readonly apiUrl: string;
  /** Sent with every HTTP request; never printed. */
  readonly credential?: Credential | undefined;
  /** Set: produce to Kafka instead of calling the HTTP API. */
  readonly kafkaBrokers?: readonly string[] | undefined;
  readonly topicPrefix: string;
  readonly partitions: number;
  readonly concurrency: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Exit codes: 0 everything went through, 1 the file is not valid (nothing sent), 2 some messages
 * failed, 3 the server refused the credentials (401) or their access (403) and the import stopped.
 */
export async function runImport(options: ImportOptions, io: Io): Promise<number> {
  const started = performance.now();
  const read = await readGroupChatFile(options.input, options.format);
  if (!read.ok) {
    for (const error of read.errors) io.stderr.write(`${error}\n`);
    io.stderr.write(`${options.input}: ${plural(read.errors.length, 'error')}; nothing was sent\n`);
    return 1;
  }
  const { conversations } = read;
  const messages = conversations.reduce((n, c) => n + c.messages.length, 0);
  if (options.validateOnly) {
    io.stdout.write(
      `${options.input} is valid: ${plural(conversations.length, 'conversation')}, ${plural(messages, 'message')}\n`,
    );
    return 0;
  }

  const progress = new Progress(io.stderr, messages);
  const tally = new Tally(progress);
  let http: HttpOutcome = {};
  if (options.kafkaBrokers) {
    await sendOverKafka(
      conversations,
      {
        brokers: options.kafkaBrokers,
        topicPrefix: options.topicPrefix,
        partitions: options.partitions,
        concurrency: options.concurrency,
        log: busLogger(io.stderr),
        signal: options.signal,
      },
      tally,
    );
  } else {
    http = await sendOverHttp(
      conversations,
      {
        apiUrl: options.apiUrl,
        credential: options.credential,
        concurrency: options.concurrency,
        signal: options.signal,
      },
      tally,
    );
  }
  progress.finish();

  for (const failure of tally.failures) io.stderr.write(`failed: ${failure}\n`);
  if (options.kafkaBrokers) {
    io.stderr.write(
      `kafka: ${tally.counts.sent} messages acknowledged by the broker; duplicates are resolved by the consumer\n`,
    );
  }
  if (http.refused) io.stderr.write(`memstream: ${refusalMessage(http.refused, options.credential)}\n`);
  const seconds = Math.round(performance.now() - started) / 1000;
  io.stdout.write(`${JSON.stringify({ conversations: conversations.length, messages, ...tally.counts, seconds })}\n`);
  if (http.refused) return 3;
  return tally.counts.failed === 0 ? 0 : 2;
}

/** What to do about a refusal, which depends on what was sent; the credential's value is never part of it. */
function refusalMessage(refused: AccessRefused, credential: Credential | undefined): string {
  const stopped = `the import stopped (${refused.reason})`;
  if (refused.status === 403) {
    return `${stopped}: the server knows who is calling but refused them this conversation; a person writes only to an unused id (then theirs) or to a conversation they are a writer, manager or owner of`;
  }
  if (credential === undefined) {
    return `${stopped}: the server requires authentication; give an agent's API key (--api-key or MEMSTREAM_API_KEY) or a user's token (--token or MEMSTREAM_TOKEN)`;
  }
  const given = credential.kind === 'api-key' ? 'API key' : 'token';
  return `${stopped}: authentication failed, the server did not accept the ${given} given`;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
