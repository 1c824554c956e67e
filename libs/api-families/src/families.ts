import { apiFamily, DefaultErrorBody, defaultErrorShape } from '@memstream/http';
import { ArkErrorBody, arkErrorShape } from './error-shapes/ark.js';
import { EverMemOsErrorBody, everMemOsErrorShape } from './error-shapes/evermemos.js';
import { KaosErrorBody, kaosErrorShape } from './error-shapes/kaos.js';
import { MemoryServiceErrorBody, memoryServiceErrorShape } from './error-shapes/memory-service.js';

/**
 * memstream's API families, each documented with the error envelope its routes answer with, and
 * owning the path prefixes whose unrouted errors (404, a bad URL, headers too large) come in it.
 */
export const everMemOsDocs = apiFamily(
  'EverMemOS',
  'EverMemOS group-chat memory API: writes are held until stored (read-your-writes)',
  {
    body: EverMemOsErrorBody,
    shape: everMemOsErrorShape,
    paths: ['/api/v1'],
  },
);

export const arkDocs = apiFamily('ARK', "ARK's Memory API: message batches, sessions and Server-Sent Event streams", {
  body: ArkErrorBody,
  shape: arkErrorShape,
  paths: ['/messages', '/sessions', '/session', '/stream'],
});

// The Memory Agent has no HTTP error format of its own: the platform's default shape, under EverMemOS's /api/v1.
export const memoryAgentDocs = apiFamily(
  'Memory Agent',
  'Rolling summaries and the context an agent needs at the start of a round',
  {
    body: DefaultErrorBody,
    shape: defaultErrorShape,
    paths: ['/api/v1/context', '/api/v1/summaries'],
  },
);

export const memoryServiceDocs = apiFamily(
  'memory-service',
  'Conversations with forks, sharing and ownership: the document layout (/v1/user, /v1/agent) and the code layout (/v1/conversations) of the memory-service',
  { body: MemoryServiceErrorBody, shape: memoryServiceErrorShape, paths: ['/v1'] },
);

// memory-service's admin and auditor API, in memory-service's error shape; its audit log read is memstream's addition.
export const adminDocs = apiFamily(
  'memory-service admin',
  "The admin and auditor API of the memory-service (every person's conversations, search across everyone, eviction) and the audit log every call of it writes",
  { body: MemoryServiceErrorBody, shape: memoryServiceErrorShape, paths: ['/v1/admin'] },
);

export const kaosDocs = apiFamily(
  'KAOS',
  "KAOS agent memory: sessions and typed events in an agent's namespace (X-KAOS-Agent), KAOS's own /memory reads, and one route per LocalMemory operation",
  { body: KaosErrorBody, shape: kaosErrorShape, paths: ['/memory'] },
);

/** Every family, in the order the document lists their tags. */
export const API_FAMILIES = [everMemOsDocs, arkDocs, memoryAgentDocs, memoryServiceDocs, adminDocs, kaosDocs] as const;
