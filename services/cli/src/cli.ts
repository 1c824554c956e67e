import { parseArgs } from 'node:util';
import type { InputFormat } from './group-chat-file.js';
import { runImport, type Io } from './import-command.js';
import { runLocomoToGroupChat } from './locomo-command.js';

export const USAGE = `usage:
  memstream import --input FILE [--format groupchat|locomo] [--api-url URL | --kafka BROKERS]
                   [--validate-only] [--concurrency N] [--topic-prefix P] [--partitions N]
  memstream locomo-to-groupchat --input LOCOMO.json --output OUT.json

import         validates every message of a GroupChatFormat file (docs/group-chat-format.md), then
               sends them to the memories API (default --api-url http://127.0.0.1:8080) or, with
               --kafka host:port[,host:port], straight to the input topic. Progress goes to stderr,
               one JSON summary line to stdout. Exit 0: all sent; 1: invalid input, nothing sent;
               2: some messages failed.
locomo-to-groupchat
               converts a LoCoMo benchmark file into GroupChatFormat (one conversation per sample).
`;

const IMPORT_OPTIONS = {
  input: { type: 'string' },
  format: { type: 'string', default: 'groupchat' },
  'api-url': { type: 'string', default: 'http://127.0.0.1:8080' },
  kafka: { type: 'string' },
  'validate-only': { type: 'boolean', default: false },
  concurrency: { type: 'string', default: '4' },
  'topic-prefix': { type: 'string', default: '' },
  partitions: { type: 'string', default: '8' },
  help: { type: 'boolean', default: false },
} as const;

const LOCOMO_OPTIONS = {
  input: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

class UsageError extends Error {}

/** Parses the command line and runs the command; resolves with the process exit code. */
export async function runCli(argv: readonly string[], io: Io, signal?: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'import') return await importCommand(rest, io, signal);
    if (command === 'locomo-to-groupchat') return await locomoCommand(rest, io);
    if (command === '--help' || command === '-h' || command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command ${command}`);
  } catch (err) {
    if (!(err instanceof UsageError) && !isParseArgsError(err)) throw err;
    io.stderr.write(`memstream: ${(err as Error).message}\n${USAGE}`);
    return 1;
  }
}

async function importCommand(args: readonly string[], io: Io, signal: AbortSignal | undefined): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: IMPORT_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) return help(io);
  if (!values.input) throw new UsageError('import needs --input FILE');
  if (values.format !== 'groupchat' && values.format !== 'locomo') throw new UsageError(`--format must be groupchat or locomo, not ${values.format}`);
  if (values.kafka !== undefined && args.some((a) => a === '--api-url' || a.startsWith('--api-url='))) {
    throw new UsageError('give --api-url or --kafka, not both');
  }
  const brokers = values.kafka?.split(',').map((b) => b.trim()).filter((b) => b !== '');
  if (brokers !== undefined && brokers.length === 0) throw new UsageError('--kafka needs at least one host:port');
  return runImport(
    {
      input: values.input,
      format: values.format as InputFormat,
      validateOnly: values['validate-only'],
      apiUrl: values['api-url'],
      kafkaBrokers: brokers,
      topicPrefix: values['topic-prefix'],
      partitions: positiveInt('--partitions', values.partitions),
      concurrency: positiveInt('--concurrency', values.concurrency),
      signal,
    },
    io,
  );
}

async function locomoCommand(args: readonly string[], io: Io): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: LOCOMO_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) return help(io);
  if (!values.input || !values.output) throw new UsageError('locomo-to-groupchat needs --input FILE and --output FILE');
  return runLocomoToGroupChat({ input: values.input, output: values.output }, io);
}

function help(io: Io): number {
  io.stdout.write(USAGE);
  return 0;
}

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, not ${value}`);
  return n;
}

/** parseArgs reports unknown or malformed options with these codes; they are usage errors, not crashes. */
function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
