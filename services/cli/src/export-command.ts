import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadable } from 'node:stream/web';
import type { Io } from './import-command.js';
import type { Credential } from './send-http.js';

export interface ExportOptions {
  readonly output: string;
  readonly apiUrl: string;
  readonly credential: Credential | undefined;
  /** One person's data (admin); undefined with `me` false: the whole server. */
  readonly userId: string | undefined;
  /** The caller's own data (GET /v1/me/export). */
  readonly me: boolean;
  readonly justification: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface RestoreOptions {
  readonly input: string;
  /** For a file of another format: its export records, sent instead of the file. */
  readonly convert?: ((text: string) => readonly unknown[]) | undefined;
  readonly apiUrl: string;
  readonly credential: Credential | undefined;
  readonly justification: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

const headersOf = (credential: Credential | undefined): Record<string, string> =>
  credential === undefined
    ? {}
    : credential.kind === 'api-key'
      ? { 'x-api-key': credential.value }
      : { authorization: `Bearer ${credential.value}` };

/**
 * `memstream export`: streams an export into a file as it comes. Exit 0 when the file ends with
 * the end record (the export is whole), 2 when it does not (the server or the connection failed
 * mid-way: the file is incomplete), 3 when the credentials or their role were refused.
 */
export async function runExport(o: ExportOptions, io: Io): Promise<number> {
  const url = new URL(o.me ? '/v1/me/export' : '/v1/admin/exports', o.apiUrl);
  if (o.userId !== undefined) url.searchParams.set('userId', o.userId);
  if (o.justification !== undefined) url.searchParams.set('justification', o.justification);
  const res = await fetch(url, { headers: headersOf(o.credential), signal: o.signal ?? null });
  if (!res.ok || res.body === null) return refused(res, io);
  // Only the tail is kept, to find the last line: the export itself goes straight to the file.
  let tail = '';
  const watch = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      tail = (tail + chunk.toString('utf8')).slice(-1_000_000);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadable<Uint8Array>), watch, createWriteStream(o.output));
  } catch (err) {
    io.stderr.write(`memstream: the export stopped: ${(err as Error).message}\n`);
    return 2;
  }
  const last = tail.trimEnd().split('\n').at(-1) ?? '';
  const end = parsed(last);
  if (end?.kind !== 'end') {
    io.stderr.write(`memstream: ${o.output} is incomplete: the export did not reach its end record\n`);
    return 2;
  }
  io.stdout.write(`${JSON.stringify({ output: o.output, counts: end.counts })}\n`);
  return 0;
}

/**
 * `memstream import --format memstream`: sends an export file to POST /v1/admin/imports as it is
 * read. Exit 0 when the server stored it, 1 when it refused the file (its answer names the line),
 * 3 when it refused the credentials or their role.
 */
export async function runRestore(o: RestoreOptions, io: Io): Promise<number> {
  const url = new URL('/v1/admin/imports', o.apiUrl);
  if (o.justification !== undefined) url.searchParams.set('justification', o.justification);
  const size = (await stat(o.input)).size;
  io.stderr.write(`memstream: sending ${o.input} (${size} bytes)\n`);
  let body: string | ReadableStream<Uint8Array>;
  if (o.convert) {
    try {
      body = o
        .convert(await readFile(o.input, 'utf8'))
        .map((r) => `${JSON.stringify(r)}\n`)
        .join('');
    } catch (err) {
      io.stderr.write(`memstream: ${o.input}: ${(err as Error).message}\n`);
      return 1;
    }
  } else body = Readable.toWeb(createReadStream(o.input)) as ReadableStream<Uint8Array>;
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headersOf(o.credential), 'content-type': 'application/x-ndjson' },
    body,
    duplex: 'half',
    signal: o.signal ?? null,
  } as RequestInit);
  if (!res.ok) return refused(res, io);
  const answer = (await res.json()) as { refusedConversationCount?: unknown };
  io.stdout.write(`${JSON.stringify(answer)}\n`);
  // The rest was imported, but not all of the file: said apart from success, as a chat import does.
  const refusals = Number(answer.refusedConversationCount ?? 0);
  if (refusals === 0) return 0;
  io.stderr.write(
    `memstream: ${refusals} conversation(s) refused: the server holds them, or the file does not create them (refusedConversations)\n`,
  );
  return 2;
}

async function refused(res: Response, io: Io): Promise<number> {
  const text = await res.text().catch(() => '');
  io.stderr.write(`memstream: the server answered ${res.status}: ${text.slice(0, 2000)}\n`);
  return res.status === 401 || res.status === 403 ? 3 : 1;
}

function parsed(line: string): { kind?: unknown; counts?: unknown } | undefined {
  try {
    return JSON.parse(line) as { kind?: unknown; counts?: unknown };
  } catch {
    return undefined;
  }
}
