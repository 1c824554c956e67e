import type { Readable } from 'node:stream';
import { AppError } from '@memstream/errors';
import { jsonValueError, parseOrThrow } from '@memstream/http';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  ExportRecord,
  IMPORT_REFUSALS_LISTED,
  type ExportDataRecord,
} from '@memstream/schemas';
import {
  advanceSequences,
  beginImportScope,
  finishImportScope,
  importRecords,
  type ImportTouched,
  type Store,
} from '@memstream/store';

/** A record longer than this is not one of ours (a message is at most a megabyte of text). */
export const MAX_IMPORT_LINE_BYTES = 8_000_000;
/** Records of one kind stored in one statement. */
const BATCH = 500;

export interface ImportAnswer {
  lines: number;
  imported: Record<string, number>;
  alreadyPresent: Record<string, number>;
  refused: Record<string, number>;
  refusedConversations: Array<{
    error: string;
    code: 'conflict';
    details: { resource: 'conversation'; id: string; records: Record<string, number> };
  }>;
  refusedConversationCount: number;
}

/** The answer, and what the import created and granted (for its audit row, not the answer). */
export interface ImportOutcome {
  answer: ImportAnswer;
  touched: ImportTouched;
}

const refusalText = (id: string) =>
  `conversation ${id}: its records were not imported. An import adds records only to the conversations it creates (their conversation record new to this server, earlier in the same file), never to one the server already holds`;

/**
 * Restores an export as it arrives, in one transaction. Only into conversations the import
 * creates: records of any other are refused one conversation at a time, named in the answer (see
 * import-scope). Otherwise all or nothing. A bad line (not JSON,
 * not a record, out of order, a reference to what was not stored before it) refuses the whole
 * import with 400 naming the line, and nothing is kept; so does a body cut short (no end record,
 * or one whose counts differ from the records read). Records of one kind are stored a batch at
 * a time, a batch when the kind changes, so each lands after what it refers to.
 */
export async function importStream(store: Store, body: Readable): Promise<ImportOutcome> {
  const outcome: ImportAnswer = {
    lines: 0,
    imported: {},
    alreadyPresent: {},
    refused: {},
    refusedConversations: [],
    refusedConversationCount: 0,
  };
  const read: Record<string, number> = {};
  const listed = new Map<string, Record<string, number>>();
  const refusedIds = new Set<string>();
  const touched = await store.transaction(async (tx) => {
    const scope = beginImportScope();
    let batch: ExportDataRecord[] = [];
    let batchFirstLine = 0;
    let ended: { counts: Record<string, number>; line: number } | undefined;
    const flush = async () => {
      if (batch.length === 0) return;
      const kind = batch[0]!.kind;
      const done = await importRecords(tx, scope, kind, batch as never).catch((err: unknown) => {
        throw refusalOf(err, batchFirstLine, outcome.lines, kind);
      });
      outcome.imported[kind] = (outcome.imported[kind] ?? 0) + done.stored;
      outcome.alreadyPresent[kind] = (outcome.alreadyPresent[kind] ?? 0) + done.present;
      for (const [id, n] of done.refused) {
        outcome.refused[kind] = (outcome.refused[kind] ?? 0) + n;
        refusedIds.add(id);
        const records = listed.get(id) ?? (listed.size < IMPORT_REFUSALS_LISTED ? {} : undefined);
        if (records) listed.set(id, { ...records, [kind]: (records[kind] ?? 0) + n });
      }
      batch = [];
    };
    for await (const { text, n } of lines(body)) {
      outcome.lines = n;
      if (text.trim() === '') continue;
      const record = parseRecord(text, n);
      if (ended)
        throw new AppError('INVALID_PARAMETER', `line ${n}: nothing may follow the end record (line ${ended.line})`);
      if (n === 1 || record.kind === 'header') {
        if (n !== 1 || record.kind !== 'header')
          throw new AppError('INVALID_PARAMETER', `line ${n}: an export has one header, on its first line`);
        continue;
      }
      if (record.kind === 'end') {
        ended = { counts: record.counts, line: n };
        continue;
      }
      read[record.kind] = (read[record.kind] ?? 0) + 1;
      if (batch.length > 0 && (batch[0]!.kind !== record.kind || batch.length >= BATCH)) await flush();
      if (batch.length === 0) batchFirstLine = n;
      batch.push(record);
    }
    if (outcome.lines === 0) throw new AppError('INVALID_PARAMETER', 'the body is empty: send an export');
    if (!ended) throw new AppError('INVALID_PARAMETER', 'the export ends without its end record: it was cut short');
    const kinds = new Set([...Object.keys(read), ...Object.keys(ended.counts)]);
    for (const kind of kinds)
      if ((read[kind] ?? 0) !== (ended.counts[kind] ?? 0))
        throw new AppError(
          'INVALID_PARAMETER',
          `line ${ended.line}: the end record counts ${ended.counts[kind] ?? 0} ${kind} records, the body holds ${read[kind] ?? 0}`,
        );
    await flush();
    await advanceSequences(tx);
    return finishImportScope(tx, scope);
  });
  outcome.refusedConversationCount = refusedIds.size;
  outcome.refusedConversations = [...listed].map(([id, records]) => ({
    error: refusalText(id),
    code: 'conflict' as const,
    details: { resource: 'conversation' as const, id, records },
  }));
  return { answer: outcome, touched };
}

function parseRecord(text: string, n: number): ExportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('INVALID_PARAMETER', `line ${n} is not JSON`, { details: { line: n } });
  }
  // What the JSON parser of every other body refuses (a __proto__ key the schema would drop, 1e400
  // read as Infinity and stored as null), refused here too: an import restores what was exported.
  const refused = jsonValueError(value, { what: 'the line' });
  if (refused)
    throw new AppError(refused.code, `line ${n}: ${refused.message}`, { details: { ...refused.details, line: n } });
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (n === 1 && kind === 'header') {
    const { format, version } = value as { format?: unknown; version?: unknown };
    if (format !== EXPORT_FORMAT || version !== EXPORT_VERSION)
      throw new AppError(
        'INVALID_PARAMETER',
        `line 1: this server reads ${EXPORT_FORMAT} version ${EXPORT_VERSION}, not ${String(format)} version ${String(version)}`,
        { details: { line: 1 } },
      );
  }
  try {
    return parseOrThrow(ExportRecord, value, `line ${n}`);
  } catch (err) {
    if (err instanceof AppError)
      throw new AppError('INVALID_PARAMETER', `line ${n}: ${err.message}`, {
        details: { ...err.details, line: n },
      });
    throw err;
  }
}

/**
 * What a failed batch tells the importer. PostgreSQL refusing the data (a reference to what is not
 * there, a value out of its range, a key too large for its index) is the body's fault: 400 with
 * the lines, and the constraint's name, never the values (they may be content). A conflict with
 * the target's own rows stays 409.
 */
function refusalOf(err: unknown, first: number, last: number, kind: string): unknown {
  const lines = first === last ? `line ${first}` : `lines ${first}-${last}`;
  if (err instanceof AppError)
    return new AppError(err.code, `${lines}: ${err.message}`, { details: { ...err.details, line: first } });
  const code = (err as { code?: unknown }).code;
  // 54000: an id of 1,000 characters outside the BMP is 4 KB, past a B-tree entry's 2,704 bytes
  if (typeof code === 'string' && (code.startsWith('22') || code.startsWith('23') || code === '54000')) {
    const constraint = (err as { constraint?: unknown }).constraint;
    const why =
      code === '23503'
        ? 'refers to a record not stored before it (a record must follow what it refers to)'
        : code === '54000'
          ? 'holds a value too large for the database to index (54000)'
          : `was refused by the database (${typeof constraint === 'string' ? constraint : code})`;
    return new AppError('INVALID_PARAMETER', `${lines}: a ${kind} record ${why}`, { details: { line: first } });
  }
  return err;
}

/** The body's lines as they arrive, numbered from 1, never more than one line held. */
async function* lines(body: Readable): AsyncGenerator<{ text: string; n: number }> {
  body.setEncoding('utf8');
  let pending = '';
  let n = 0;
  for await (const piece of body as AsyncIterable<string>) {
    let start = 0;
    for (let end = piece.indexOf('\n', start); end >= 0; end = piece.indexOf('\n', start)) {
      const text = pending + piece.slice(start, end);
      pending = '';
      start = end + 1;
      yield { text, n: ++n };
    }
    pending += piece.slice(start);
    if (pending.length > MAX_IMPORT_LINE_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', `line ${n + 1} is longer than ${MAX_IMPORT_LINE_BYTES} bytes`, {
        details: { line: n + 1 },
      });
  }
  if (pending !== '') yield { text: pending, n: ++n };
}
