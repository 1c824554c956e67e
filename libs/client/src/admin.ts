import type { z } from 'zod';
import type {
  AdminConversationBody,
  AdminConversationList,
  AdminListConversationsQuery,
  AdminMembershipList,
  AdminMessagePage,
  AdminMessagesQuery,
  AdminSearchRequest,
  AdminSearchResults,
  AuditLogPage,
  AuditLogQuery,
  CallerRoles,
  DeadLetterList,
  DeadLettersQuery,
  ErasureAccepted,
  ErasureList,
  ErasureListQuery,
  ErasureReceipt,
  ErasureRequest,
  EvictionJobBody,
  EvictRequest,
  ExportQuery,
  ExportRecord,
  ImportResult,
} from '@memstream/schemas';
import type { CallOptions, Http } from './http.js';
import { ROUTES } from './routes.js';

type Input<S extends z.ZodType> = z.input<S>;
const R = ROUTES.admin;

/**
 * The admin and auditor API (memory-service's admin contract): every person's conversations, search
 * across everyone, eviction, and the audit log. Needs a caller holding the admin or auditor role;
 * others get 403. `justification` goes to the audit log with the call.
 */
export class Admin {
  constructor(private readonly http: Http) {}

  listConversations(
    query: Input<typeof AdminListConversationsQuery> = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminConversationList>> {
    return this.http.call(R.listConversations, { query }, options);
  }

  getConversation(
    id: string,
    query: { includeDeleted?: 'true' | 'false'; justification?: string } = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminConversationBody>> {
    return this.http.call(R.getConversation, { params: { id }, query }, options);
  }

  /** Soft-deletes the conversation and its whole fork tree. */
  async deleteConversation(id: string, justification?: string, options?: CallOptions): Promise<void> {
    await this.http.call(R.deleteConversation, { params: { id }, body: { justification } }, options, true);
  }

  restoreConversation(
    id: string,
    justification?: string,
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminConversationBody>> {
    return this.http.call(R.restoreConversation, { params: { id }, body: { justification } }, options, true);
  }

  messages(
    id: string,
    query: Input<typeof AdminMessagesQuery> = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminMessagePage>> {
    return this.http.call(R.messages, { params: { id }, query }, options);
  }

  memberships(
    id: string,
    query: { includeDeleted?: 'true' | 'false'; justification?: string } = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminMembershipList>> {
    return this.http.call(R.memberships, { params: { id }, query }, options);
  }

  search(
    request: Input<typeof AdminSearchRequest>,
    justification?: string,
    options?: CallOptions,
  ): Promise<z.infer<typeof AdminSearchResults>> {
    return this.http.call(R.search, { query: { justification }, body: request }, options, true);
  }

  /** Evicts and waits until done (the job is the server's: it completes even if this call is cut). */
  async evict(request: Input<typeof EvictRequest>, options?: CallOptions): Promise<void> {
    await this.http.call(R.evict, { query: { async: 'false' }, body: request }, options);
  }

  /** Starts an eviction and answers with its job at once; follow it with evictionJob. */
  startEviction(request: Input<typeof EvictRequest>, options?: CallOptions): Promise<z.infer<typeof EvictionJobBody>> {
    return this.http.call(R.evict, { query: { async: 'true' }, body: request }, options);
  }

  evictionJob(jobId: string, options?: CallOptions): Promise<z.infer<typeof EvictionJobBody>> {
    return this.http.call(R.evictionJob, { params: { jobId } }, options);
  }

  /** Erases a person from every family (admin); answers at once with the job, to follow with erasure. */
  erase(request: Input<typeof ErasureRequest>, options?: CallOptions): Promise<z.infer<typeof ErasureAccepted>> {
    return this.http.call(R.erase, { body: request }, options);
  }

  /** An erasure's receipt: its status, times, and what it removed per family and store (auditor). */
  erasure(id: string, options?: CallOptions): Promise<z.infer<typeof ErasureReceipt>> {
    return this.http.call(R.erasure, { params: { id } }, options);
  }

  /** The latest erasures, newest first, each as its receipt (auditor); one person's with `userId`. */
  erasures(query: Input<typeof ErasureListQuery> = {}, options?: CallOptions): Promise<z.infer<typeof ErasureList>> {
    return this.http.call(R.erasures, { query }, options);
  }

  /**
   * The latest dead-lettered records of each `.dlq` topic (or one), newest first, with the reason
   * the bus gave (auditor: the records hold what was sent).
   */
  deadLetters(
    query: Input<typeof DeadLettersQuery> = {},
    options?: CallOptions,
  ): Promise<z.infer<typeof DeadLetterList>> {
    return this.http.call(R.deadLetters, { query }, options);
  }

  /** The admin roles the caller holds (any caller may ask): what a front end may offer. */
  roles(options?: CallOptions): Promise<z.infer<typeof CallerRoles>> {
    return this.http.call(R.roles, {}, options);
  }

  /** Erases the calling person themself (their own token; the local user without authentication). */
  eraseMe(justification?: string, options?: CallOptions): Promise<z.infer<typeof ErasureAccepted>> {
    return this.http.call(R.eraseMe, { body: { justification } }, options);
  }

  /** The receipt of an erasure of the calling person (only their own). */
  myErasure(id: string, options?: CallOptions): Promise<z.infer<typeof ErasureReceipt>> {
    return this.http.call(R.myErasure, { params: { id } }, options);
  }

  /** The audit log, oldest first; page with `after: nextCursor`. */
  auditLog(query: Input<typeof AuditLogQuery> = {}, options?: CallOptions): Promise<z.infer<typeof AuditLogPage>> {
    return this.http.call(R.auditLog, { query }, options);
  }

  /**
   * An export (docs/export-import.md) record by record as it streams: the whole server, or one
   * person's data with `userId`. The last record is the end record; an export without it was cut short.
   */
  async *exportData(
    query: Input<typeof ExportQuery> = {},
    options?: CallOptions,
  ): AsyncGenerator<ExportRecord, void, undefined> {
    yield* ndjsonRecords(await this.http.open(R.exportData, { query }, options));
  }

  /** The caller's own data (a person's token), as exportData streams it. */
  async *exportOwnData(options?: CallOptions): AsyncGenerator<ExportRecord, void, undefined> {
    yield* ndjsonRecords(await this.http.open(R.exportOwnData, {}, options));
  }

  /** Restores an export (its NDJSON text, or its records) on this server; all or nothing. */
  importData(
    exported: string | readonly ExportRecord[],
    justification?: string,
    options?: CallOptions,
  ): Promise<z.infer<typeof ImportResult>> {
    const body = typeof exported === 'string' ? exported : exported.map((r) => JSON.stringify(r)).join('\n');
    return this.http.call(R.importData, { query: { justification }, body: body as never }, options);
  }
}

/** The records of an NDJSON answer as its lines arrive (browser-safe: a web stream and TextDecoder). */
async function* ndjsonRecords(response: Response): AsyncGenerator<ExportRecord, void, undefined> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = done ? '' : lines.pop()!;
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as ExportRecord;
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
