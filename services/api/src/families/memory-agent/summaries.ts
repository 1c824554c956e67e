import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '@memstream/errors';
import type { ZodApp } from '@memstream/http';
import { memoryAgentDocs } from './docs.js';
import {
  lastSequence,
  latestCompletedSummary,
  listSummaries,
  messagesInRange,
  type Store,
  type SummaryMemory,
} from '@memstream/store';
import {
  MemoryAgentContextQuery as ContextQuery,
  MemoryAgentSummariesQuery as ConversationQuery,
  MemoryAgentContextBody,
  SummariesBody,
  type CanonicalMessage,
} from '@memstream/schemas';
import { audiencesFor, requireAccess } from '../../shared/access.js';

/**
 * The Memory Agent's reads. `conversation_id` is whatever id the writing API used (a group id
 * for EverMemOS; `private:<sender>` for a private chat).
 */
export function registerSummaries(app: ZodApp, deps: { store: Store }): void {
  /** Every memory row of the conversation, oldest first: the version chain with its statuses. */
  const summariesDocs = memoryAgentDocs.route({
    summary: 'Every memory row of a conversation, oldest first',
    querystring: ConversationQuery,
    responses: {
      200: SummariesBody.meta({ description: 'The version chain with statuses, generation times and errors' }),
    },
  });
  app.get('/api/v1/summaries', summariesDocs, async (request) => {
    const { conversation_id: id } = request.query;
    await requireConversation(deps.store, request, id);
    const rows = await listSummaries(deps.store, id);
    return { conversation_id: id, summaries: rows.map(publicRow) };
  });

  /**
   * What an agent needs at the start of a round: the latest completed memory (or null) and the
   * gap, the messages after it (all messages while no memory is ready). `format=text` renders
   * both as one prompt-ready string.
   */
  const contextDocs = memoryAgentDocs.route({
    summary: 'The latest completed memory and the messages after it',
    querystring: ContextQuery,
    responses: {
      200: {
        description: 'The memory and the gap as JSON, or with format=text one prompt-ready string',
        content: {
          'application/json': MemoryAgentContextBody,
          'text/plain': z.string().meta({ description: 'The memory as earlier context, then the gap as a transcript' }),
        },
      },
    },
  });
  app.get('/api/v1/context', contextDocs, async (request, reply) => {
    const { conversation_id: id, format } = request.query;
    const last = await requireConversation(deps.store, request, id);
    const memory = await latestCompletedSummary(deps.store, id);
    const gap = await messagesInRange(
      deps.store,
      id,
      memory ? memory.end_sequence + 1 : 0,
      last,
      audiencesFor(request),
    );
    if (format === 'text') {
      // a string of its own media type: fastify sends it as it is, past the JSON schema (typed for JSON)
      return reply.type('text/plain; charset=utf-8').send(renderContext(memory, gap) as never);
    }
    return {
      conversation_id: id,
      memory: memory
        ? {
            memory_id: memory.memory_id,
            memory_text: memory.memory_text,
            start_sequence: memory.start_sequence,
            end_sequence: memory.end_sequence,
          }
        : null,
      gap_messages: gap.map(gapMessage),
    };
  });
}

async function requireConversation(store: Store, request: FastifyRequest, id: string): Promise<number> {
  const notFound = () => new AppError('RESOURCE_NOT_FOUND', `Conversation not found: ${id}`);
  await requireAccess(store, request, id, 'reader', notFound);
  const last = await lastSequence(store, id);
  if (last === undefined) throw notFound();
  return last;
}

function publicRow(m: SummaryMemory) {
  return {
    memory_id: m.memory_id,
    conversation_id: m.conversation_id,
    memory_text: m.memory_text,
    start_sequence: m.start_sequence,
    end_sequence: m.end_sequence,
    base_memory_id: m.base_memory_id,
    status: m.status,
    created_at: m.created_at.toISOString(),
    generation_time_ms: m.generation_time_ms,
    attempts: m.attempts,
    error: m.error,
  };
}

function gapMessage(m: CanonicalMessage) {
  return {
    sequence: m.seq,
    message_id: m.message_id,
    sender_id: m.sender_id,
    sender_name: m.sender_name,
    role: m.role,
    content: m.content,
    created_at: m.created_at,
  };
}

/** One string for a prompt: the memory as earlier context, then the gap as a transcript. */
export function renderContext(memory: SummaryMemory | undefined, gap: readonly CanonicalMessage[]): string {
  const parts: string[] = [];
  if (memory)
    parts.push(`[Previous context (messages ${memory.start_sequence}-${memory.end_sequence}): ${memory.memory_text}]`);
  if (gap.length > 0)
    parts.push(gap.map((m) => `${m.sender_name} (${m.role}, ${m.created_at}): ${m.content}`).join('\n'));
  return parts.join('\n\n');
}
