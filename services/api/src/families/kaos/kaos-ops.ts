import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '@memstream/errors';
import { parseOrThrow, principalOf, writeOriginOf } from '@memstream/http';
import type { Writer } from '@memstream/ingest';
import { outcomeOf } from './reply-result-or-accepted.js';
import { findKaosSession, type KaosSessionRow, type KaosViewer, type Store } from '@memstream/store';
import { KaosHeaders, KaosSessionParams, SAFE_ID_RULE, TOPICS, type KaosInput } from '@memstream/schemas';
import { personOf } from '../../shared/access.js';
import { parseRaw } from './raw-json.js';
import { pythonStr, TextTooLong } from './python-text.js';

export interface KaosSettings {
  /** The agent a call belongs to when it sends no X-KAOS-Agent header. */
  readonly defaultAgent: string;
  readonly maxSessions: number;
  readonly maxSessionEvents: number;
}

export interface KaosDeps {
  readonly store: Store;
  readonly write: Writer;
  readonly settings: KaosSettings;
}

const AGENT_HEADER = 'x-kaos-agent';

/** `<prefix>_<hex>`, the shape of KAOS's generated ids (session_ 12 hex digits, event_ 8). */
export function kaosId(prefix: string, hexDigits: number): string {
  return `${prefix}_${randomBytes(Math.ceil(hexDigits / 2))
    .toString('hex')
    .slice(0, hexDigits)}`;
}

/**
 * The session a per-session route names. `.`, `..` and the empty id cannot name a session (a
 * path resolves them away, so none is ever created): to KAOS's clients they are sessions that do
 * not exist, answered as KAOS answers one.
 */
export function sessionIdOf(request: FastifyRequest): string {
  const raw = (request.params as { sessionId?: string }).sessionId ?? '';
  if (raw === '' || raw === '.' || raw === '..') throw new AppError('RESOURCE_NOT_FOUND', `Session not found: ${raw}`);
  return parseOrThrow(KaosSessionParams, request.params, 'path').sessionId;
}

/** The agent whose memory the call reaches: the X-KAOS-Agent header, else the configured one. */
export function agentOf(request: FastifyRequest, fallback: string): string {
  const header = request.headers[AGENT_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return fallback;
  if (!KaosHeaders.safeParse({ [AGENT_HEADER]: value }).success)
    throw new AppError('INVALID_PARAMETER', `Data format error: invalid header X-KAOS-Agent: must be ${SAFE_ID_RULE}`, {
      details: { field: 'X-KAOS-Agent' },
    });
  return value;
}

/** A person sees the sessions they may read; agents and the local user see the agent's all. */
export function viewerOf(request: FastifyRequest): KaosViewer {
  return { userId: personOf(request) };
}

/**
 * What the family does on every route: the agent and viewer of the call, reads of a session the
 * caller may see, and writes as events through Kafka, held until the converter applied them.
 */
export function kaosOps(deps: KaosDeps) {
  // Settings are read per call: the OpenAPI document is built from routes registered without any.
  const agent = (request: FastifyRequest) => agentOf(request, deps.settings.defaultAgent);
  return {
    agent,
    /** The session, or 404 (also for one the caller may not see: to them it does not exist). */
    async session(request: FastifyRequest, sessionId: string): Promise<KaosSessionRow> {
      const found = await findKaosSession(deps.store, agent(request), sessionId, { viewer: viewerOf(request) });
      if (!found) throw new AppError('RESOURCE_NOT_FOUND', `Session not found: ${sessionId}`);
      return found;
    },
    /**
     * Publishes one KAOS write and waits for its outcome: the outcome's result, or undefined when
     * the wait ended first (the write is in Kafka and will be applied; the route answers 202).
     */
    async send<T extends KaosInput['type']>(
      request: FastifyRequest,
      type: T,
      data: Extract<KaosInput, { type: T }>['data'],
    ): Promise<Record<string, unknown> | undefined> {
      const written = await deps.write(
        writeOriginOf(request),
        TOPICS.conversationInput,
        { type, data, source: 'kaos' } as never,
        true,
      );
      return outcomeOf(written);
    },
    /**
     * The limits each write carries: the server's (MEMORY_MAX_SESSIONS, MEMORY_MAX_SESSION_EVENTS),
     * or lower ones an agent's key or the local user sends (KaosHeaders), as KAOS's LocalMemory is
     * built with them. A person's token may not set them (403): a person's caps are the server's.
     */
    limits: (request: FastifyRequest) => {
      const header = (name: string) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const given = parseOrThrow(
        KaosHeaders,
        {
          'x-kaos-max-sessions': header('x-kaos-max-sessions'),
          'x-kaos-max-session-events': header('x-kaos-max-session-events'),
        },
        'header',
      );
      const sessions = given['x-kaos-max-sessions'];
      const events = given['x-kaos-max-session-events'];
      if ((sessions !== undefined || events !== undefined) && principalOf(request).kind === 'user')
        throw new AppError(
          'FORBIDDEN',
          "X-KAOS-Max-Sessions and X-KAOS-Max-Session-Events are an agent's: with a person's token the server's limits apply",
          { details: { field: sessions !== undefined ? 'X-KAOS-Max-Sessions' : 'X-KAOS-Max-Session-Events' } },
        );
      const { maxSessions, maxSessionEvents } = deps.settings;
      return {
        max_sessions: Math.min(Number(sessions ?? maxSessions), maxSessions),
        max_session_events: Math.min(Number(events ?? maxSessionEvents), maxSessionEvents),
      };
    },
  };
}

export type KaosOps = ReturnType<typeof kaosOps>;

/**
 * The text KAOS's build_conversation_context makes of the latest user and agent messages; content
 * that is not a string reads as Python prints it (see pythonStr).
 */
export function contextOf(
  events: ReadonlyArray<{ event_type: string; content_json: string }>,
  maxEvents: number,
  maxChars = KAOS_CONTEXT_MAX_CHARS,
): string {
  let left = maxChars;
  const lines = events.slice(-maxEvents).map((e) => {
    const content = parseRaw(e.content_json);
    const who = e.event_type === 'user_message' ? 'User: ' : 'Assistant: ';
    try {
      const line = who + (content ? pythonStr(content, left) : e.content_json);
      if ((left -= line.length + 1) < 0) throw new TextTooLong();
      return line;
    } catch (err) {
      if (!(err instanceof TextTooLong)) throw err;
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The context of the last ${maxEvents} messages is past ${maxChars} characters: ask for fewer (max_events)`,
        { details: { field: 'max_events' } },
      );
    }
  });
  return lines.join('\n');
}

/** What a context text may hold: stored content re-rendered as Python prints it is bounded too. */
export const KAOS_CONTEXT_MAX_CHARS = 8 * 1024 * 1024;

/** `event_types` as given: comma-separated, repeated, or both. */
export function eventTypesOf(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const types = (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return types.length > 0 ? types : undefined;
}

/** The caller named as the owner of a session they create: a person themselves, an agent the user it names. */
export function ownerOf(request: FastifyRequest, userId: string | undefined): string | null {
  const principal = principalOf(request);
  if (principal.kind === 'user') return principal.userId;
  if (principal.kind === 'agent') return userId ?? null;
  return null;
}
