import { parseArgs } from 'node:util';
import type { InputFormat } from './group-chat-file.js';
import { runExport, runRestore } from './export-command.js';
import { mem0ToExport } from './mem0-export.js';
import { runImport, type Io } from './import-command.js';
import { runLocomoToGroupChat } from './locomo-command.js';
import { runMcp } from './mcp-command.js';
import type { Credential } from './send-http.js';

/** The environment the CLI reads: only its credentials, by these names. */
export type Env = Readonly<Record<string, string | undefined>>;

export const USAGE = `usage:
  memstream import --input FILE [--format groupchat|locomo] [--api-url URL | --kafka BROKERS]
                   [--api-key KEY | --token JWT] [--validate-only] [--concurrency N]
                   [--topic-prefix P] [--partitions N]
  memstream import --format memstream|mem0 --input FILE [--user ID] [--api-url URL]
                   [--api-key KEY | --token JWT] [--justification TEXT]
  memstream export --output FILE [--user ID | --me] [--api-url URL] [--api-key KEY | --token JWT]
                   [--justification TEXT]
  memstream locomo-to-groupchat --input LOCOMO.json --output OUT.json
  memstream mcp [--transport stdio|http] [--port N] [--host H] [--url URL]

import         validates every message of a GroupChatFormat file (docs/group-chat-format.md), then
               sends them to the memories API (default --api-url http://127.0.0.1:8080) or, with
               --kafka host:port[,host:port], straight to the input topic. Progress goes to stderr,
               one JSON summary line to stdout. Exit 0: all sent; 1: invalid input, nothing sent;
               2: some messages failed; 3: the server refused the credentials (401) or their
               access (403), and the import stopped.
               A server with authentication wants an agent's API key (--api-key, or MEMSTREAM_API_KEY;
               sent as X-API-Key) or a user's token (--token, or MEMSTREAM_TOKEN; sent as a bearer
               token). The variables keep the secret out of the shell history and the process list;
               a flag replaces them for one run.
               With --format memstream, FILE is an export (docs/export-import.md), sent as it is
               read to POST /v1/admin/imports (an admin's token): all or nothing; one JSON line of
               counts to stdout. Exit 1: the server refused the file (its answer names the line).
               With --format mem0, FILE is mem0's get_all JSON: each person's memories (their
               user_id, or --user for those without) become memories of a conversation they own.
export         writes the whole server's export (an admin's token), one person's (--user ID, admin),
               or the caller's own (--me) to FILE as it streams; one JSON line of counts to stdout.
               Exit 0: the file is whole (it ends with the end record); 2: it is incomplete;
               3: the credentials or their role were refused.
locomo-to-groupchat
               converts a LoCoMo benchmark file into GroupChatFormat (one conversation per sample).
mcp            runs memstream-mcp, the MCP server (stdio by default; --transport http serves
               Streamable HTTP at /mcp, default port 8090) for the memstream at --url or
               MEMSTREAM_URL (default http://127.0.0.1:8080), calling as MEMSTREAM_API_KEY or
               MEMSTREAM_TOKEN over stdio and as each HTTP request's own credentials over HTTP.
`;

const IMPORT_OPTIONS = {
  input: { type: 'string' },
  format: { type: 'string', default: 'groupchat' },
  'api-url': { type: 'string', default: 'http://127.0.0.1:8080' },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  kafka: { type: 'string' },
  'validate-only': { type: 'boolean', default: false },
  concurrency: { type: 'string', default: '4' },
  'topic-prefix': { type: 'string', default: '' },
  partitions: { type: 'string', default: '8' },
  justification: { type: 'string' },
  user: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const EXPORT_OPTIONS = {
  output: { type: 'string' },
  user: { type: 'string' },
  me: { type: 'boolean', default: false },
  'api-url': { type: 'string', default: 'http://127.0.0.1:8080' },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  justification: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const LOCOMO_OPTIONS = {
  input: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

class UsageError extends Error {}

/** Parses the command line (and the credentials in `env`) and runs the command; resolves with the process exit code. */
export async function runCli(argv: readonly string[], io: Io, signal?: AbortSignal, env: Env = {}): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'import') return await importCommand(rest, env, io, signal);
    if (command === 'export') return await exportCommand(rest, env, io, signal);
    if (command === 'locomo-to-groupchat') return await locomoCommand(rest, io);
    if (command === 'mcp') return await runMcp(rest, env, io);
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

async function importCommand(
  args: readonly string[],
  env: Env,
  io: Io,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: IMPORT_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) return help(io);
  if (!values.input) throw new UsageError('import needs --input FILE');
  if (values.format === 'memstream' || values.format === 'mem0') {
    if (values.kafka !== undefined) throw new UsageError('an export is imported through --api-url, not --kafka');
    const user = values.user;
    return runRestore(
      {
        input: values.input,
        convert: values.format === 'mem0' ? (text) => mem0ToExport(JSON.parse(text), user) : undefined,
        apiUrl: values['api-url'],
        credential: credentialOf({ apiKey: values['api-key'], token: values.token }, env),
        justification: values.justification,
        signal,
      },
      io,
    );
  }
  if (values.justification !== undefined || values.user !== undefined)
    throw new UsageError('--justification and --user are for --format memstream and mem0');
  if (values.format !== 'groupchat' && values.format !== 'locomo')
    throw new UsageError(`--format must be groupchat, locomo, memstream or mem0, not ${values.format}`);
  if (values.kafka !== undefined && args.some((a) => a === '--api-url' || a.startsWith('--api-url='))) {
    throw new UsageError('give --api-url or --kafka, not both');
  }
  const brokers = values.kafka
    ?.split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (brokers !== undefined && brokers.length === 0) throw new UsageError('--kafka needs at least one host:port');
  const flags = { apiKey: values['api-key'], token: values.token };
  if (brokers !== undefined && (flags.apiKey !== undefined || flags.token !== undefined)) {
    throw new UsageError('--api-key and --token are for --api-url; the broker --kafka writes to takes no credentials');
  }
  return runImport(
    {
      input: values.input,
      format: values.format as InputFormat,
      validateOnly: values['validate-only'],
      apiUrl: values['api-url'],
      // The environment's credential is not checked for --kafka, which does not send it.
      credential: brokers === undefined ? credentialOf(flags, env) : undefined,
      kafkaBrokers: brokers,
      topicPrefix: values['topic-prefix'],
      partitions: positiveInt('--partitions', values.partitions),
      concurrency: positiveInt('--concurrency', values.concurrency),
      signal,
    },
    io,
  );
}

async function exportCommand(
  args: readonly string[],
  env: Env,
  io: Io,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: EXPORT_OPTIONS, strict: true, allowPositionals: false });
  if (values.help) return help(io);
  if (!values.output) throw new UsageError('export needs --output FILE');
  if (values.me && values.user !== undefined) throw new UsageError('give --user or --me, not both');
  return runExport(
    {
      output: values.output,
      apiUrl: values['api-url'],
      credential: credentialOf({ apiKey: values['api-key'], token: values.token }, env),
      userId: values.user,
      me: values.me,
      justification: values.justification,
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

/**
 * The credential an import sends: the flags', else the environment's. A flag replaces an exported
 * credential of either kind, so a person can use --token for one run beside an exported agent key.
 * Empty variables count as unset, as a shell's `MEMSTREAM_TOKEN=` means.
 */
function credentialOf(
  flags: { apiKey?: string | undefined; token?: string | undefined },
  env: Env,
): Credential | undefined {
  if (flags.apiKey !== undefined || flags.token !== undefined)
    return oneOf(flags.apiKey, flags.token, '--api-key', '--token');
  const fromEnv = (name: string) => (env[name] === '' ? undefined : env[name]);
  return oneOf(fromEnv('MEMSTREAM_API_KEY'), fromEnv('MEMSTREAM_TOKEN'), 'MEMSTREAM_API_KEY', 'MEMSTREAM_TOKEN');
}

function oneOf(
  apiKey: string | undefined,
  token: string | undefined,
  keyName: string,
  tokenName: string,
): Credential | undefined {
  if (apiKey !== undefined && token !== undefined) throw new UsageError(`give ${keyName} or ${tokenName}, not both`);
  if (apiKey !== undefined) return { kind: 'api-key', value: headerValue(keyName, apiKey) };
  if (token !== undefined) return { kind: 'token', value: headerValue(tokenName, token) };
  return undefined;
}

/** Checked here because fetch's own error for a bad header value quotes the value, and errors are printed. */
function headerValue(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new UsageError(`${name} must be one word of printable ASCII characters (the value is not shown)`);
  return value;
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
